"""Files the app ships beside its code: the app icon (SVG and PNG sizes, rendered from the SVG by
packaging/render_icons.py), the desktop entry and the AppStream metainfo, named after :data:`APP_ID`.

Read through importlib.resources, which works from a clone, a wheel and the frozen bundle alike. Kept to
the standard library: the window imports this before it is shown (start-up budget)."""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importlib.resources.abc is Python 3.11+; gpuassist runs on 3.10
    from importlib.resources.abc import Traversable

APP_ID = "io.github.gpuassist.GpuAssist"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
DESKTOP_FILE = f"{APP_ID}.desktop"
METAINFO_FILE = f"{APP_ID}.metainfo.xml"


def resource(name: str) -> Traversable:
    """A shipped file by its path in this folder (``icons/gpuassist.svg``, :data:`DESKTOP_FILE` ...)."""
    node = resources.files(__name__)
    for part in name.split("/"):
        node = node / part
    return node


def icon_png_resource(size: int) -> Traversable:
    """The app icon rendered at ``size`` px (one of :data:`ICON_SIZES`)."""
    return resource(f"icons/gpuassist-{size}.png")


def icon_png(size: int) -> bytes:
    return icon_png_resource(size).read_bytes()


def icon_svg() -> bytes:
    return resource("icons/gpuassist.svg").read_bytes()
