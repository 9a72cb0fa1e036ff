"""The app sets its window icon (every rendered size up to 256 px) and the desktop entry's name."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from gpuassist.desktop import APP_ID
from gpuassist.ui.icon import WINDOW_ICON_SIZES, set_app_identity


def test_app_identity(qapp: QApplication) -> None:
    set_app_identity(qapp)
    sizes = {s.width() for s in qapp.windowIcon().availableSizes()}
    assert sizes == set(WINDOW_ICON_SIZES)
    assert qapp.desktopFileName() == APP_ID
