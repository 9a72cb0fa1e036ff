"""Many machines, one verdict: merge gpuassist reports from a cluster's nodes (``gpuassist fleet``).

Qt-free: :mod:`.sources` reads reports from files, folders and streams one at a time, :mod:`.merge`
groups nodes by root cause and finds the nodes that differ from their peers, :mod:`.render` writes
text, JSON (``gpuassist.fleet/1``), Markdown and HTML. The app's fleet view (gpuassist.ui.fleet_view)
shows the same result.
"""

from gpuassist.fleet.merge import SCHEMA, FleetMerger, FleetResult, merge
from gpuassist.fleet.sources import Entry, SourceNotes, iter_entries

__all__ = ["SCHEMA", "Entry", "FleetMerger", "FleetResult", "SourceNotes", "iter_entries", "merge"]
