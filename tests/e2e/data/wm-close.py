"""Close an X window the way a window manager does when its close button is pressed: a
WM_DELETE_WINDOW client message (ICCCM), which the app may answer by staying open.

    wm-close.py DISPLAY WINDOW_ID
"""
import sys

from Xlib import X, display, protocol

d = display.Display(sys.argv[1])
window = d.create_resource_object("window", int(sys.argv[2]))
protocols = d.intern_atom("WM_PROTOCOLS")
delete = d.intern_atom("WM_DELETE_WINDOW")
event = protocol.event.ClientMessage(
    window=window, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0])
)
window.send_event(event, event_mask=X.NoEventMask)
# A round trip, not a flush: the server has taken the message before this client hangs up
# (with a flush alone about one close in twenty never reached the window).
d.sync()
