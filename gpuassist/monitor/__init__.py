"""The live monitor's data side (Qt-free): a sampler thread writing CPU/RAM/GPU readings into ring buffers.

The GUI draws from :meth:`Monitor.snapshot` on its own timer; the sampler never touches the UI. See
:mod:`gpuassist.monitor.sampler` for the trace format shared by CSV export, reports and scenarios.
"""

from gpuassist.monitor.sampler import (
    LiveSource,
    Marker,
    Monitor,
    Sample,
    Source,
    Trace,
    TraceSource,
    trace_to_csv,
)

__all__ = ["LiveSource", "Marker", "Monitor", "Sample", "Source", "Trace", "TraceSource", "trace_to_csv"]
