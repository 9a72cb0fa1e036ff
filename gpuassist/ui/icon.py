"""The app's window icon and desktop identity, from the files in gpuassist/resources."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication, QIcon, QPixmap

from gpuassist.resources import APP_ID, ICON_SIZES, icon_png_resource

# Window and task-bar icons are small; the larger PNGs are for the menu (installed separately).
WINDOW_ICON_SIZES = tuple(s for s in ICON_SIZES if s <= 256)


def app_icon() -> QIcon:
    """The app icon with each rendered size, so Qt never scales a 256 px image down to 16 px. Files are
    added by name, which Qt reads only when a size is drawn (start-up); bytes only from a zipped install."""
    icon = QIcon()
    for size in WINDOW_ICON_SIZES:
        png = icon_png_resource(size)
        if isinstance(png, Path):
            icon.addFile(str(png), QSize(size, size))
            continue
        pixmap = QPixmap()
        if pixmap.loadFromData(png.read_bytes(), "PNG"):
            icon.addPixmap(pixmap)
    return icon


def set_app_identity(app: QGuiApplication) -> None:
    """Window icon for every window, and the desktop entry's name so Wayland compositors and task bars
    match the windows to the menu entry (and its icon)."""
    app.setWindowIcon(app_icon())
    app.setDesktopFileName(APP_ID)
