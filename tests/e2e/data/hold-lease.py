"""Hold a card file shut, as a card that stopped answering holds its reader: a write lease
(fcntl F_SETLEASE) on PATH, so another process's open of it waits until this process ends
(or the kernel's lease-break-time, 45 s by default, passes). Prints "held" once the lease is
taken and "reached" when an open has come to wait on it."""

import fcntl
import os
import signal
import sys

F_SETLEASE = 1024


def reached(_signum, _frame):
    print("reached", flush=True)


fd = os.open(sys.argv[1], os.O_RDONLY)
signal.signal(signal.SIGIO, reached)
fcntl.fcntl(fd, F_SETLEASE, fcntl.F_WRLCK)
print("held", flush=True)
while True:
    signal.pause()
