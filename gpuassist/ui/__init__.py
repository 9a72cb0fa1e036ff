"""The desktop app (PySide6 + pyqtgraph): the only package that imports Qt (docs/architecture.md §1).

Everything it shows comes from Qt-free layers: :mod:`gpuassist.wizard` (the flow), :mod:`gpuassist.monitor`
(the sampler), :mod:`gpuassist.report` (the exported documents).
"""
