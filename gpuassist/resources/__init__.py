"""Files the app ships beside its code: the app icon (SVG and PNG sizes, rendered by
packaging/render_icons.py), the desktop entry and the AppStream metainfo. Read them through
:mod:`gpuassist.desktop` (importlib.resources), which works from a clone, a wheel and the frozen bundle."""
