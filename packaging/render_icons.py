"""Render the app icon's PNG sizes from its SVG (gpuassist/resources/icons/gpuassist.svg).

    .venv/bin/python packaging/render_icons.py           write gpuassist-<size>.png beside the SVG
    .venv/bin/python packaging/render_icons.py --check   exit 1 when a committed PNG is missing, has the
                                                         wrong size or no longer matches the SVG

Qt's own SVG renderer (QtSvg, part of PySide6-Essentials) does the drawing, so the PNGs come out the same
wherever gpuassist's environment exists; desktops pick the size nearest to what they show (hicolor).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "gpuassist" / "resources" / "icons"
SVG = ICONS / "gpuassist.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
# Largest per-channel difference (0-255) tolerated by --check: anti-aliasing may move by a step or two
# between Qt releases, a changed drawing moves far more.
TOLERANCE = 24


def png_path(size: int) -> Path:
    return ICONS / f"gpuassist-{size}.png"


def render(renderer: QSvgRenderer, size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def max_difference(a: QImage, b: QImage) -> int:
    a = a.convertToFormat(QImage.Format.Format_ARGB32)
    b = b.convertToFormat(QImage.Format.Format_ARGB32)
    worst = 0
    for y in range(a.height()):
        for x in range(a.width()):
            pa, pb = a.pixel(x, y), b.pixel(x, y)
            worst = max(worst, *(abs(((pa >> s) & 255) - ((pb >> s) & 255)) for s in (0, 8, 16, 24)))
    return worst


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="compare the committed PNGs with a fresh render")
    args = p.parse_args()
    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"render_icons: {SVG} is not a valid SVG", file=sys.stderr)
        return 1
    bad = []
    for size in SIZES:
        image = render(renderer, size)
        path = png_path(size)
        if not args.check:
            path.write_bytes(png_bytes(image))
            continue
        committed = QImage(str(path))
        if committed.isNull() or committed.size() != image.size():
            bad.append(f"{path.name}: missing or not {size}x{size}")
        elif (diff := max_difference(committed, image)) > TOLERANCE:
            bad.append(f"{path.name}: differs from the SVG by {diff} (run packaging/render_icons.py)")
    for line in bad:
        print(f"render_icons: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
