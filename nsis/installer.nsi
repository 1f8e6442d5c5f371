; DarkRoom's Windows installer (NSIS 3, Modern UI 2). Built by scripts/build-windows:
;   makensis -DVERSION=0.1.0 -DSTAGE=<dir with darkroom.exe, onnxruntime.dll, licences>
;            -DOUTFILE=<path> nsis/installer.nsi
;
; Per-user by default (no administrator prompt): the app goes to
; %LOCALAPPDATA%\Programs\DarkRoom and registers under HKCU. onnxruntime.dll sits next to
; darkroom.exe, the first place the engine looks. NVIDIA libraries are not bundled: a GPU rung
; is used only when the user's own CUDA/TensorRT install passes the probe.
Unicode true
; DarkRoom is x86-64 only, so the installer is too: it sees the native registry and folders.
Target amd64-unicode
!include "MUI2.nsh"

!ifndef VERSION
  !error "pass -DVERSION=x.y.z"
!endif
!ifndef STAGE
  !error "pass -DSTAGE=<staging dir>"
!endif
!ifndef OUTFILE
  !define OUTFILE "DarkRoom-${VERSION}-setup.exe"
!endif

!define APP "DarkRoom"
!define APP_ID "photo.darkroom.DarkRoom"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP_ID}"

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "Software\${APP}" "InstallDir"
RequestExecutionLevel user
SetCompressor /SOLID lzma
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP} installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "LegalCopyright" "The DarkRoom developers (MIT OR Apache-2.0)"

!define MUI_ABORTWARNING
!define MUI_ICON "${STAGE}\darkroom.ico"
!define MUI_UNICON "${STAGE}\darkroom.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\darkroom.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP}"

!insertmacro MUI_PAGE_WELCOME
; DarkRoom's own licence, then what else the package carries.
!insertmacro MUI_PAGE_LICENSE "${STAGE}\licences\LICENCES.txt"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"

Section "DarkRoom" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "${STAGE}\darkroom.exe"
  File "${STAGE}\onnxruntime.dll"
  File "${STAGE}\darkroom.ico"
  ; U2-Netp, the subject segmenter, and CenterFace, the face detector any use may ship: the
  ; engine looks in models\ beside the exe.
  SetOutPath "$INSTDIR\models"
  File "${STAGE}\models\u2netp.onnx"
  File "${STAGE}\models\centerface.onnx"
  ; MediaPipe's face mesh and iris models: each face's eyes, smile and gaze.
  File "${STAGE}\models\face_mesh.onnx"
  File "${STAGE}\models\iris_landmark.onnx"
  ; dlib's face recogniser (public domain): who is who.
  File "${STAGE}\models\dlib_resnet.onnx"
  SetOutPath "$INSTDIR\licences"
  File "${STAGE}\licences\*.*"

  WriteUninstaller "$INSTDIR\uninstall.exe"
  WriteRegStr HKCU "Software\${APP}" "InstallDir" "$INSTDIR"

  ; Add/Remove Programs, for this user.
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "The DarkRoom developers"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\darkroom.ico"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1

  CreateDirectory "$SMPROGRAMS\${APP}"
  CreateShortcut "$SMPROGRAMS\${APP}\${APP}.lnk" "$INSTDIR\darkroom.exe" "" "$INSTDIR\darkroom.ico"
  CreateShortcut "$SMPROGRAMS\${APP}\Uninstall ${APP}.lnk" "$INSTDIR\uninstall.exe"
SectionEnd

Section "Uninstall"
  ; The catalog, settings and downloaded models live in %APPDATA%\DarkRoom and are the user's:
  ; they stay. Only what this installer put down is removed.
  Delete "$INSTDIR\darkroom.exe"
  Delete "$INSTDIR\onnxruntime.dll"
  Delete "$INSTDIR\darkroom.ico"
  Delete "$INSTDIR\models\u2netp.onnx"
  Delete "$INSTDIR\models\centerface.onnx"
  Delete "$INSTDIR\models\face_mesh.onnx"
  Delete "$INSTDIR\models\iris_landmark.onnx"
  Delete "$INSTDIR\models\dlib_resnet.onnx"
  RMDir "$INSTDIR\models"
  RMDir /r "$INSTDIR\licences"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${APP}\${APP}.lnk"
  Delete "$SMPROGRAMS\${APP}\Uninstall ${APP}.lnk"
  RMDir "$SMPROGRAMS\${APP}"
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
  DeleteRegKey HKCU "Software\${APP}"
SectionEnd
