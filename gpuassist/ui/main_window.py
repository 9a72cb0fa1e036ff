"""The main window (docs/architecture.md §7): target bar, step list, page stack, live monitor strip.

The window owns no logic of its own: it renders the :class:`~gpuassist.wizard.Flow`, starts
``flow.execute`` on a worker, and turns worker events into page updates. Dialogs are thin wrappers around
methods tests call directly (``open_report_file``, ``load_pasted_text``, ``export_to``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QColor, QFont, QIcon, QKeySequence, QPainter, QPen, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gpuassist.monitor import Monitor
from gpuassist.own_python import fallback_python, own_python
from gpuassist.report.model import Report
from gpuassist.ui import style
from gpuassist.ui.cards import card_actions, plain_tip
from gpuassist.ui.monitor_view import MonitorView
from gpuassist.ui.pages import ScriptProgress, StepPage, SummaryPage
from gpuassist.ui.script_run_panel import ScriptRunPanel
from gpuassist.ui.workers import WorkerHandle, start_worker
from gpuassist.wizard import SUMMARY, Flow, StepContext, StepStatus
from gpuassist.wizard.model import DEFAULT_SECONDS, DEFAULT_STEPS, FlowEvent, OnFlowEvent
from gpuassist.wizard.script_run import (
    run_unavailable,
    target_python,
    working_dir,
)

# Lazy imports: start-up. Panels, readers and exporters load when first used, after the window is shown.

if TYPE_CHECKING:  # the environment table loads when first shown, the discovery when the selector is filled
    import threading

    from gpuassist.envs.target import TargetChoice
    from gpuassist.ui.envs_panel import EnvironmentsPanel
    from gpuassist.wizard.environments import Environments, EnvRowEvent

log = logging.getLogger(__name__)

CLOSE_BUDGET_S = 1.6  # of the 2 s the user waits after closing mid-run (docs/architecture.md §6)
NO_ENV_TABLE = "This report has no environment table (`gpuassist envs --format json` writes one)."
ENVS_TIP = "Every Python environment on this machine and its torch; pick the one your code runs"
ENVS_TIP_SIMULATED = "The environment table lists this machine's interpreters: not shown for a simulated machine"
EXPORT_FILTERS = {
    "html": "HTML report (*.html)",
    "markdown": "Markdown (*.md)",
    "json": "JSON report (*.json)",
    "csv": "Monitor traces (*.csv)",
}
EXPORT_SUFFIX = {"html": ".html", "markdown": ".md", "json": ".json", "csv": ".csv"}
ASK_DELAY_MS = 300  # the question opens once the window has been shown and drawn
COMPLETE_WITHIN_MS = 1000  # a deferred window completes by then even if its first frame never comes
PICKED_REASON = "your choice in gpuassist (remembered on this machine)"
ASK_GUESS = (
    "Which Python does your code run? {count} environments have torch; gpuassist picked {name}, the one "
    "used most recently. Click the one your code runs with to diagnose it instead."
)
ASK_NONE = (
    "Which Python does your code run? None of the environments found has torch; gpuassist picked {name}. "
    "Click the one your code runs with to diagnose it instead."
)


def remembered_key() -> str:
    """The settings key of the interpreter chosen on this machine (a home shared over NFS holds one per host)."""
    return f"target_by_host/{socket.gethostname() or 'localhost'}"


class PasteDialog(QDialog):
    """A box to paste `python -m torch.utils.collect_env` output (or an error message) into."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Paste collect_env output")
        self.resize(760, 520)
        lay = QVBoxLayout(self)
        lay.addWidget(
            QLabel(
                "Paste the output of  python -m torch.utils.collect_env  (any torch version), or an "
                "error message or traceback:"
            )
        )
        self.text = QPlainTextEdit()
        self.text.setFont(style.mono_font())
        lay.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Diagnose")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)


COMPACT_HEIGHT = 800  # below this window height the layout is compact (docs: issue #16 item 7)


class MainWindow(QMainWindow):
    """See module docstring. ``settings`` persists geometry, last target and the redaction choice."""

    run_finished = Signal()
    first_frame = Signal()  # the window's first frame is drawn (work that can wait for it waits for it)

    def __init__(
        self, flow: Flow, monitor: Monitor, settings: QSettings, *, scenario_label: str = "", defer: bool = False
    ) -> None:
        """``defer``: build only what the first frame shows (the page in view, no guess of the target) and the
        rest on the turn after it (app start-up: docs/architecture.md §5); ``completed`` says when."""
        super().__init__()
        self.flow = flow
        self.monitor = monitor
        self.settings = settings
        self.scenario_label = scenario_label
        self.worker: WorkerHandle | None = None
        self.envs_worker: WorkerHandle | None = None
        self.reader_worker: WorkerHandle | None = None  # reading an opened or pasted input
        self.environments: Environments | None = None
        self._envs_key: Any = None
        self.last_error: str | None = None
        self.last_export: Path | None = None
        self._closing = False
        self.fleet_windows: list[Any] = []  # fleet views opened from here (closed with this window)
        self._live_flow_factory: Any = None
        self.script_run_panel: ScriptRunPanel | None = None
        self.target_choice: TargetChoice | None = None  # how the default target was chosen (None: by the user)
        self.asking = False  # the environment table is open to ask which interpreter the user's code runs
        card_actions().diagnose_requested.connect(self._diagnose_offered)
        self._following = False  # the run is moving the page (not the user)
        self._user_navigated = False
        self._summary_due = False  # a redraw of the Summary in view is queued (see refresh)
        self.frame_drawn = False  # the first frame is on screen (first_frame was or is about to be emitted)
        self.complete = False  # every page is built and the target chosen (``completed`` was emitted)
        self._targets_filled = False
        self._target_chosen = False  # set_target() was called: a deferred fill of the selector keeps its choice
        self._defer = defer
        self._drawn = False  # the first refresh() is done: a page built from now on is drawn as it is built
        flow.context.monitor = monitor  # a run of the user's script gets its band on it
        self.setWindowTitle("gpuassist — why is PyTorch not using my GPU?")
        self.setStyleSheet(style.STYLESHEET)

        central = QWidget()
        central.setObjectName("central")
        root = QVBoxLayout(central)
        root.setContentsMargins(0, 0, 0, 0)
        root.setSpacing(0)
        root.addWidget(self._build_topbar())
        self.banner = QLabel()
        self.banner.setTextFormat(Qt.TextFormat.PlainText)  # report and path text, shown as is
        self.banner.setObjectName("banner")
        self.banner.setVisible(False)
        self.banner.setWordWrap(True)
        root.addWidget(self.banner)
        self._envs_panel: EnvironmentsPanel | None = None  # built when first shown
        self._envs_dialog: QDialog | None = None  # the window the environment table lives in
        self._live: tuple[Flow, Environments | None, Any] | None = None  # the session kept while reading a report

        self.steps_list = QListWidget()
        self.steps_list.setObjectName("steps")
        self.steps_list.setMinimumWidth(180)
        self.steps_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.steps_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.steps_list.currentRowChanged.connect(self._on_row)
        self.stack = QStackedWidget()
        self.pages: dict[str, StepPage | SummaryPage] = {}  # the pages built so far (all, once complete)
        self.compact = False
        for n, step in enumerate(flow.steps, 1):
            self.steps_list.addItem(QListWidgetItem(f"{n}  {step.title}"))
        for step in flow.steps[:1] if defer else flow.steps:
            self._build_page(step.id)

        upper = QSplitter(Qt.Orientation.Horizontal)
        upper.addWidget(self.steps_list)
        upper.addWidget(self.stack)
        upper.setStretchFactor(1, 1)
        upper.setSizes([220, 980])
        upper.setChildrenCollapsible(False)
        self.monitor_view = MonitorView(monitor, simulated=flow.context.simulated, tags=step_tags(flow))
        self.monitor_view.export_csv_requested.connect(lambda: self.export_dialog("csv"))
        self.monitor_view.collapsed_changed.connect(self._on_monitor_collapsed)
        self.vsplit = QSplitter(Qt.Orientation.Vertical)
        self.vsplit.addWidget(upper)
        self.vsplit.addWidget(self.monitor_view)
        self.vsplit.setStretchFactor(0, 1)
        self.vsplit.setChildrenCollapsible(False)
        self.vsplit.setSizes([600, 270])
        root.addWidget(self.vsplit, 1)
        self.setCentralWidget(central)
        self.statusBar().showMessage("Ready. Press Run all ▶ to diagnose the target interpreter.")
        QShortcut(QKeySequence("Ctrl+R"), self).activated.connect(self.run_all)
        QShortcut(QKeySequence("Esc"), self).activated.connect(self.stop)

        geometry = settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            screen = self.screen().availableGeometry() if self.screen() is not None else None
            w, h = (screen.width(), screen.height()) if screen is not None else (1400, 920)
            self.resize(min(1400, int(w * 0.92)), min(920, int(h * 0.92)))
        self.monitor_view.set_collapsed(str(settings.value("monitor_collapsed") or "0") == "1")
        self._update_banner()
        if defer:  # the rest once the first frame is drawn, or soon anyway (a window never exposed: minimised)
            self.first_frame.connect(lambda: QTimer.singleShot(0, self._complete))
            QTimer.singleShot(COMPLETE_WITHIN_MS, self._complete)
        self.refresh()
        self._drawn = True
        self.steps_list.setCurrentRow(0)
        if not defer:
            self._complete()

    completed = Signal()  # every page is built and the target chosen (at once, or after the first frame)

    def _complete(self) -> None:
        """Build the pages not built yet and choose the default target (the selector is filled)."""
        if self.complete or self._closing:
            return
        self.complete = True
        for step in self.flow.steps:
            self._page(step.id)
        if not self._targets_filled:
            self._fill_targets()
            self.refresh()
        if self.target_choice is not None and self.target_choice.ask:
            # after the window is up: the environment table (and its scan) are not part of start-up
            QTimer.singleShot(ASK_DELAY_MS, self.ask_for_target)
        self.completed.emit()

    def _page(self, step_id: str) -> StepPage | SummaryPage:
        """The step's page, built now if it was not yet (a window built with ``defer``)."""
        return self.pages.get(step_id) or self._build_page(step_id)

    def _build_page(self, step_id: str) -> StepPage | SummaryPage:
        flow = self.flow
        n = flow.ids.index(step_id) + 1
        step = flow.steps[n - 1]
        page: StepPage | SummaryPage
        if step.id == SUMMARY:
            page = SummaryPage(n, len(flow.steps))
            page.export_requested.connect(self.export_dialog)
            page.run_offered_requested.connect(lambda: self.run(self.flow.offered() or None))
            page.redact_changed.connect(self._on_redact)
            page.redact.setChecked(self.redact)
        else:
            page = StepPage(
                step.id,
                step.title,
                step.explanation,
                n,
                len(flow.steps),
                progress=ScriptProgress() if step.id == "script" else None,
            )
            page.run_requested.connect(self.run_step)
            page.next_requested.connect(self.go_next)
        page.back_requested.connect(self.go_back)
        self.pages[step.id] = page
        self.stack.insertWidget(sum(1 for s in flow.ids[: n - 1] if s in self.pages), page)  # in step order
        if step.id == "script":
            self._build_script_chooser()
        if self.compact:
            page.set_compact(True)
        if self._drawn:  # built after the window's first drawing: drawn in the state the others show
            self._draw_if_stale(step.id)
        return page

    # -- layout: the monitor folds away (remembered); below ~800 px of height the window is compact ---------
    def _on_monitor_collapsed(self, collapsed: bool) -> None:
        if not self.compact:  # a choice made in the compact layout is not the user's standing choice
            self.settings.setValue("monitor_collapsed", "1" if collapsed else "0")
        self._fit_monitor()

    def _fit_monitor(self) -> None:
        """Give the pages the height a folded monitor frees (a splitter keeps a widget's old share)."""
        sizes = self.vsplit.sizes()
        total = sum(sizes)
        if total <= 0:
            return
        if self.monitor_view.collapsed:
            strip = self.monitor_view.maximumHeight()
        else:
            strip = max(200, min(300, int(total * 0.3)))
        self.vsplit.setSizes([total - strip, strip])

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.set_compact(self.height() < COMPACT_HEIGHT)

    def set_compact(self, compact: bool) -> None:
        """Below ~800 px of height the plots fold away (their readings line stays) so the page keeps the
        verdict and its first action above the fold; above it, the user's remembered choice returns."""
        if compact == self.compact:
            return
        self.compact = compact
        remembered = str(self.settings.value("monitor_collapsed") or "0") == "1"
        self.monitor_view.set_collapsed(True if compact else remembered)
        self._fit_monitor()
        for page in self.pages.values():
            page.set_compact(compact)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not getattr(self, "_split_done", False):  # the monitor keeps ~30 % of the height, pages the rest
            self._split_done = True
            h = self.vsplit.height()
            strip = max(200, min(300, int(h * 0.3)))
            if h > strip + 200:
                self.vsplit.setSizes([h - strip, strip])
            self._fit_monitor()  # a monitor folded last time (or on a short screen) starts folded
            handle = self.windowHandle()
            if handle is not None:  # its first expose draws the first frame (synchronously, in its handler)
                handle.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        handle = self.windowHandle()
        if watched is handle and event.type() == QEvent.Type.Expose and handle.isExposed():
            handle.removeEventFilter(self)
            self.frame_drawn = True
            QTimer.singleShot(0, self.first_frame.emit)  # the turn after the expose: the frame is drawn
        return super().eventFilter(watched, event)

    # -- building ----------------------------------------------------------------------------------------
    def _build_topbar(self) -> QWidget:
        bar = QWidget()
        bar.setObjectName("topbar")
        bar.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        rows = QVBoxLayout(bar)
        rows.setContentsMargins(12, 8, 12, 6)
        rows.setSpacing(2)
        lay = QHBoxLayout()
        lay.setSpacing(6)
        rows.addLayout(lay)
        # why this interpreter (gpuassist.envs.target): one line under the selector
        self.target_reason = QLabel("")
        self.target_reason.setObjectName("targetInfo")
        self.target_reason.setTextFormat(Qt.TextFormat.PlainText)
        self.target_reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rows.addWidget(self.target_reason)
        target = QLabel("Target:")
        target.setObjectName("targetLabel")
        lay.addWidget(target)
        self.target_combo = QComboBox()
        self.target_combo.setMinimumContentsLength(12)  # elided; the full path is in the list and tooltip
        self.target_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.target_combo.setToolTip("The Python interpreter to diagnose: the one your training script runs with")
        if not self._defer or self.flow.context.simulated:  # else once the first frame is drawn (_complete)
            self._fill_targets()
        self.target_combo.activated.connect(self._on_target_activated)
        lay.addWidget(self.target_combo, 1)
        self.browse_button = QPushButton("Browse…")
        self.browse_button.setToolTip("Choose another interpreter file (the python your script, notebook or IDE runs)")
        self.browse_button.clicked.connect(self.browse_target)
        lay.addWidget(self.browse_button)
        self.envs_button = QPushButton("Environments")
        self.envs_button.setCheckable(True)
        self.envs_button.toggled.connect(self.show_environments_panel)
        lay.addWidget(self.envs_button)
        self.target_info = QLabel("")
        self.target_info.setTextFormat(Qt.TextFormat.PlainText)  # report and path text, shown as is
        self.target_info.setObjectName("targetInfo")
        lay.addWidget(self.target_info)
        lay.addStretch(0)
        self.run_button = QPushButton("Run all  ▶")
        self.run_button.setObjectName("primary")
        self.run_button.setToolTip("Run every step in order (Ctrl+R)")
        self.run_button.clicked.connect(self.run_all)
        self.stop_button = QPushButton("Stop  ■")
        self.stop_button.setObjectName("danger")
        self.stop_button.setToolTip("Stop the running step (Esc); the probe process is killed")
        self.stop_button.clicked.connect(self.stop)
        self.export_button = QToolButton()
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        for fmt, text in (
            ("html", "HTML report (with plots)…"),
            ("markdown", "Markdown…"),
            ("json", "JSON…"),
            ("csv", "Monitor traces (CSV)…"),
        ):
            menu.addAction(text, functools.partial(self.export_dialog, fmt))
        self.export_button.setMenu(menu)
        # a support engineer's way in: someone else's report, or the collect_env output they pasted
        self.open_button = QToolButton()
        self.open_button.setText("Open  ▾")
        self.open_button.setToolTip(
            "Read someone else's report: a gpuassist JSON report, collect_env output or an error log"
        )
        self.open_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        reports = QMenu(self.open_button)
        self.open_action = reports.addAction("Open report…", self.open_report_dialog)
        self.open_action.setShortcut(QKeySequence.StandardKey.Open)
        self.paste_action = reports.addAction("Paste collect_env output…", self.paste_dialog)
        self.fleet_action = reports.addAction("Open folder of reports (fleet)…", self.open_fleet_dialog)
        self.open_button.setMenu(reports)
        self.addAction(self.open_action)  # the shortcut works without opening the menu
        self.export_button.setText("Export  ▾")
        self.close_report_button = QPushButton("Close report")
        self.close_report_button.setToolTip("Back to this machine's session, as you left it")
        self.close_report_button.clicked.connect(self.close_report)
        self.close_report_button.setVisible(False)
        for w in (self.close_report_button, self.run_button, self.stop_button, self.export_button, self.open_button):
            lay.addWidget(w)
        return bar

    def _fill_targets(self) -> None:
        """The selector: the default target (gpuassist.envs.target: the interpreter chosen on this machine
        before, else the active/project/PATH one, never this app's own while another exists), the other
        interpreters found, and recent choices. Filled after the first frame (``defer``), it keeps a target
        chosen meanwhile (--python) and only lists the others."""
        self._targets_filled = True
        combo = self.target_combo
        combo.clear()
        if self.flow.context.simulated:
            combo.addItem(f"{self.flow.context.target or 'python'}  (simulated)", self.flow.context.target)
            combo.setEnabled(False)
            return
        # start-up: the interpreter discovery (~13 ms of imports) loads here, after the first frame (``defer``)
        from gpuassist.envs import target as targets
        from gpuassist.envs.discovery import Context

        remembered = str(self.settings.value(remembered_key(), "") or "") or None
        choice = targets.choose_target(Context.current(), remembered=remembered)  # file reads only: milliseconds
        found = [
            c.python for c in (choice.discovery.candidates if choice.discovery else []) if c.exists and not c.refused
        ]
        seen: list[str] = []
        for p in [*([choice.python] if choice.python else []), *found, *self._recent_targets()]:
            if p not in seen and (p == own_python() or os.path.exists(p)):
                seen.append(p)
        for p in seen:
            combo.addItem(p + ("  (this app's Python)" if p == own_python() else ""), p)
        chosen = self.flow.context.target
        if self._target_chosen and chosen:  # the choice made before this (deferred) fill stands
            if combo.findData(chosen) < 0:
                combo.addItem(chosen, chosen)
            combo.setCurrentIndex(combo.findData(chosen))
            return
        self.target_choice = choice
        idx = combo.findData(choice.python) if choice.python else -1
        combo.setCurrentIndex(max(0, idx))
        self.flow.set_target(combo.currentData(), reason=choice.reason, explicit=choice.how == targets.REMEMBERED)

    def _recent_targets(self) -> list[str]:
        """Interpreters chosen before (newest first), stored as one newline-separated string."""
        return [p for p in str(self.settings.value("recent_targets", "") or "").splitlines() if p]

    @property
    def summary(self) -> SummaryPage:
        page = self._page(SUMMARY)
        assert isinstance(page, SummaryPage)
        return page

    @property
    def redact(self) -> bool:
        # stored as text: bools through QSettings/QVariant hit a refcount bug in PySide6 at exit
        return str(self.settings.value("redact", "1")) not in ("0", "false")

    @property
    def busy(self) -> bool:
        return self.worker is not None and self.worker.running

    # -- navigation -----------------------------------------------------------------------------------------
    def _on_row(self, row: int) -> None:
        if 0 <= row < len(self.flow.steps):
            step_id = self.flow.steps[row].id
            if self.busy and not self._following:
                self._user_navigated = True  # the run no longer moves the page, nor ends on the Summary
            self.flow.go(step_id)
            self.stack.setCurrentWidget(self._page(step_id))
            self._draw_if_stale(step_id)

    def _draw_if_stale(self, step_id: str) -> None:
        """A page whose drawing was put off during a run is drawn as it comes into view."""
        page = self._page(step_id)
        if isinstance(page, SummaryPage):
            self.refresh_summary()
            return
        st = self.flow.state(step_id)
        if st.status is not StepStatus.RUNNING and page.needs_render(st, self.flow.interactive):
            page.show_state(st, busy=self.busy, interactive=self.flow.interactive, blocks=self.flow.details(step_id))

    def go(self, step_id: str) -> None:
        self.steps_list.setCurrentRow(self.flow.ids.index(step_id))

    def go_next(self) -> None:
        self.go(self.flow.go_next().id)

    def go_back(self) -> None:
        self.go(self.flow.go_back().id)

    @property
    def current_page(self) -> QWidget | None:
        return self.stack.currentWidget()

    # -- rendering ------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Re-render list items, pages, buttons from the flow (called after every state change)."""
        busy = self.busy
        running = self.flow.running
        actions = card_actions()  # cards built below offer "Diagnose this one" only in a live session
        actions.target = self.flow.context.target
        actions.enabled = self.flow.interactive and not self.flow.context.simulated
        self._show_target_reason()
        for row, st in enumerate(self.flow.states()):
            item = self.steps_list.item(row)
            status = StepStatus.RUNNING if st.step.id == running else st.status
            if st.step.id == SUMMARY and status is not StepStatus.RUNNING:
                judged = self.flow.summary_status()  # the sidebar says what the Summary's headline says
                status = judged if judged is not StepStatus.PENDING else status
            item.setText(f"{row + 1}   {st.step.title}")
            item.setIcon(status_icon(status))
            item.setForeground(QColor("#5f6b7a" if status is StepStatus.PENDING else "#1f2933"))
            item.setData(
                Qt.ItemDataRole.ToolTipRole,
                f"{st.step.title}: {status.label}" + (f" — {st.reason}" if st.reason else ""),
            )
            item.setData(Qt.ItemDataRole.UserRole, status.value)
            page = self.pages.get(st.step.id)  # a page not built yet is drawn when it is built
            if isinstance(page, StepPage) and status is not StepStatus.RUNNING:
                # while a run goes on, only the page in view is redrawn (tables and plots cost the UI
                # thread tens of ms); the others are drawn when shown, or when the run ends
                if page.needs_render(st, self.flow.interactive) and (not busy or page is self.current_page):
                    page.show_state(
                        st, busy=busy, interactive=self.flow.interactive, blocks=self.flow.details(st.step.id)
                    )
                else:
                    page.update_buttons(busy=busy, interactive=self.flow.interactive)
        summary = self.pages.get(SUMMARY)
        if summary is not None and not busy:
            self.refresh_summary()
        elif summary is not None and self.current_page is summary and not self._summary_due:
            # during a run, the Summary in view is redrawn once per burst of events, not once per event (each
            # redraw builds its cards again: 5–15 ms of the UI thread)
            self._summary_due = True
            QTimer.singleShot(0, self._redraw_summary_due)
        interactive = self.flow.interactive
        self.run_button.setEnabled(interactive and not busy and self._targets_filled)  # a run needs its target
        self.stop_button.setEnabled(busy)
        self.target_combo.setEnabled(interactive and not busy and not self.flow.context.simulated)
        self.browse_button.setEnabled(interactive and not busy and not self.flow.context.simulated)
        self.envs_button.setEnabled(not self.flow.context.simulated or self.flow.source == "report")
        self.envs_button.setToolTip(ENVS_TIP_SIMULATED if not self.envs_button.isEnabled() else ENVS_TIP)
        if self._envs_panel is not None:
            self._envs_panel.set_running(busy or not interactive)
            self._refresh_environment_findings()
        self.open_button.setEnabled(not busy)
        self.export_button.setEnabled(not busy)
        self._update_script_run_panel()
        report = self.flow.report()
        if report is not None and "torch.version" in report.facts:  # a paste may not say
            torch = report.facts.value("torch.version")
            self.target_info.setText(f"torch {torch}" if torch else "torch not importable")
        else:
            self.target_info.setText("")

    def _redraw_summary_due(self) -> None:
        self._summary_due = False
        if self.pages.get(SUMMARY) is not None:
            self.refresh_summary()

    def refresh_summary(self) -> None:
        states = self.flow.states()
        key = (*states, self.flow.loaded_report, self.flow.source, self.flow.context.target)
        old = self.summary.rendered_key
        if old is not None and len(old) == len(key) and all(a is b for a, b in zip(old, key, strict=True)):
            return  # the summary already shows exactly these states
        report = self.flow.report()
        meta = report.meta if report else {}
        if self.flow.source == "report":
            line = f"Read from {meta.get('reopened_from') or meta.get('source_label') or 'a report'}"
            if meta.get("generated_at"):
                line += f" · generated {meta['generated_at']}"
        elif self.flow.context.simulated:
            line = f"SIMULATED machine: scenario {self.flow.context.scenario} — not this machine"
        else:
            line = f"This machine · target {self.flow.context.target or fallback_python()}"
        self.summary.show_report(report, states, context_line=line)
        self.summary.rendered_key = key

    def _update_banner(self) -> None:
        if self.flow.context.simulated:
            self.banner.setText(
                f"SIMULATED — scenario {self.flow.context.scenario}"
                + (f": {self.scenario_label}" if self.scenario_label else "")
                + ". Nothing shown here was measured on this machine."
            )
            self.banner.setStyleSheet(f"background: {style.SIMULATED_BG}; color: {style.SIMULATED_FG};")
            self.banner.setVisible(True)
        elif self.flow.source == "report":
            label = (
                (self.flow.loaded_report.meta.get("reopened_from") or self.flow.loaded_report.meta.get("source_label"))
                if self.flow.loaded_report
                else ""
            )
            sim = " (a SIMULATED machine)" if self.flow.loaded_report and self.flow.loaded_report.simulated else ""
            self.banner.setText(
                f"Reading {label}{sim} — not this machine. Press Close report to go back to this machine's session."
            )
            colour = style.SIMULATED_BG if sim else style.REPORT_BG
            self.banner.setStyleSheet(f"background: {colour}; color: #0d2b4e;")
            self.banner.setVisible(True)
        else:
            self.banner.setVisible(False)

    # -- running --------------------------------------------------------------------------------------------
    def run(self, step_ids: list[str] | None) -> bool:
        """Run all (None) or the given steps (plus unfinished dependencies) on a worker thread."""
        if self.busy or not self.flow.interactive or self._closing or not self._targets_filled:
            return False
        flow = self.flow
        plan = flow.plan(step_ids)
        self.statusBar().showMessage("Running: " + ", ".join(flow.step(s).title for s in plan))
        self._run_started = time.monotonic()
        self._user_navigated = False
        self._run_all = step_ids is None
        if self._run_all:
            self.monitor_view.run_started()

        def work(emit: OnFlowEvent, cancel: threading.Event) -> list[str]:
            return flow.execute(step_ids, emit, cancel)

        self.worker = start_worker(
            work, on_progress=self._on_event, on_errored=self._on_worker_error, on_done=self._on_done
        )
        self.refresh()
        return True

    def run_all(self) -> bool:
        return self.run(None)

    def run_step(self, step_id: str) -> bool:
        """Re-run one step (and whatever unfinished step it needs)."""
        return self.run([step_id])

    def stop(self) -> None:
        if self.worker is not None and self.worker.running:
            self.worker.cancel()
            self.statusBar().showMessage("Stopping…")

    def _on_event(self, ev: FlowEvent) -> None:
        sid = ev.get("step")
        if sid is None or sid not in self.flow.ids:
            return
        if ev["event"] == "step":
            if ev["status"] == "start":
                step = self.flow.step(sid)
                if sid != SUMMARY:  # the summary takes no time: no band on the time axis
                    self.monitor.mark_start(sid, "Diagnosis" if step.group else step.title)
                for page_id in self._group_of(sid):
                    page = self._page(page_id)
                    if isinstance(page, StepPage):
                        shared = "Environment, Driver and Wheel" if step.group else None
                        page.show_running(shared_with=shared)
                if sid != SUMMARY and self.flow.index < self.flow.ids.index(sid) and not self._user_navigated:
                    self._follow(sid)  # follow the run, but never jump back over what the user is reading
            else:
                self.monitor.mark_end(sid)
            self.refresh()
            return
        for page_id in self._group_of(sid):
            page = self._page(page_id)
            if isinstance(page, StepPage):
                page.progress.on_event(ev)

    def _follow(self, step_id: str) -> None:
        self._following = True
        try:
            self.go(step_id)
        finally:
            self._following = False

    def _group_of(self, sid: str) -> list[str]:
        step = self.flow.step(sid)
        if not step.group:
            return [sid]
        return [s.id for s in self.flow.steps if s.group == step.group]

    def _on_worker_error(self, message: str) -> None:
        self.show_error(f"The run stopped: {message}")

    def _on_done(self) -> None:
        self.worker = None
        seconds = time.monotonic() - getattr(self, "_run_started", time.monotonic())
        if not self._closing:
            self.refresh()
            worst = self.flow.summary_status()
            offered = self.flow.offered()
            more = f" {len(offered)} benchmark(s) offered, not run: they would measure the CPU only." if offered else ""
            self.statusBar().showMessage(f"Done in {seconds:.1f} s — {worst.label}.{more}")
            if getattr(self, "_run_all", False):
                self.monitor_view.freeze_on_run(self.monitor_view.run_origin)  # the plots stay on the run
                if not self._user_navigated:
                    self._follow(SUMMARY)  # a run ends on the verdict
        self.run_finished.emit()

    # -- target -----------------------------------------------------------------------------------------------
    def _on_target_activated(self, index: int) -> None:
        self.set_target(self.target_combo.itemData(index))

    def _show_target_reason(self) -> None:
        ctx = self.flow.context
        choosing = not ctx.target and not self._targets_filled  # the turn after the first frame chooses it
        if ctx.simulated or self.flow.source == "report" or not (ctx.target or choosing):
            self.target_reason.setText("")
            self.target_reason.setVisible(False)
            return
        self.target_reason.setVisible(True)  # its line is there from the first frame: the layout does not jump
        if choosing:
            self.target_reason.setText("Choosing the interpreter to diagnose…")
            return
        self.target_reason.setText(f"Diagnosing {ctx.target}: {ctx.target_reason or 'your choice'}")
        self.target_reason.setToolTip(
            "Why this interpreter. Change it in the selector, with Browse…, or in the "
            "Environments table; your choice is remembered on this machine."
        )

    def ask_for_target(self) -> None:
        """The default is a guess (several environments have torch, or none has): open the environment table
        with the guess selected, and let one click on a row change it."""
        choice = self.target_choice
        if (
            choice is None
            or not choice.ask
            or self._closing
            or self.flow.context.simulated
            or self.flow.source == "report"
        ):
            return  # the user chose meanwhile (--python, the selector), or there is nothing to ask about
        self.asking = True
        self.show_environments_panel(True)
        sizes = self.vsplit.sizes()  # the question needs room: most of the height, the monitor the least
        total = sum(sizes)
        if len(sizes) == 3 and total > 0:
            table = int(total * 0.48)
            monitor = min(sizes[2], max(150, int(total * 0.22)))
            self.vsplit.setSizes([table, max(120, total - table - monitor), monitor])
        text = ASK_GUESS if choice.with_torch else ASK_NONE
        self.envs_panel.set_asking(text.format(name=choice.name or choice.python, count=len(choice.with_torch)))

    def _diagnose_offered(self, path: str) -> None:
        """ "Diagnose this one" on a finding card: that interpreter becomes the target (and is remembered)."""
        if self._closing or not self.flow.interactive:
            return
        if self.busy:
            self.statusBar().showMessage("Stop the running step first: the target cannot change during a run.")
            return
        self.set_target(path)

    def set_target(self, path: str | None, *, reason: str = PICKED_REASON, remember: bool = True) -> None:
        """Change the interpreter diagnosed (the user's choice, remembered on this machine unless
        ``remember`` is off, as for --python); re-run what had run against the old one."""
        self._target_chosen = True
        if path and self.target_combo.findData(path) < 0:
            self.target_combo.addItem(path, path)
        if path:
            self.target_combo.setCurrentIndex(self.target_combo.findData(path))
            if remember:
                self.settings.setValue(remembered_key(), path)
            recent = [p for p in self._recent_targets() if p != path]
            self.settings.setValue("recent_targets", "\n".join([path, *recent][:8]))
        self.target_choice = None
        if self.asking:
            self.asking = False
            if self._envs_panel is not None:
                self._envs_panel.set_asking(None)
        rerun = self.flow.set_target(path, reason=reason, explicit=True)
        if self.environments is not None and self.environments.pickable:
            self.environments = self.environments.retarget(path)
            self.flow.set_environments(self.environments.facts)
            self._envs_key = None
        self.refresh()
        if rerun:
            self.run(rerun)

    def browse_target(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Choose the Python interpreter to diagnose",
            os.path.dirname(self.flow.context.target or fallback_python()),
        )
        if path:
            self.set_target(path)

    # -- the user's script (optional step) -------------------------------------------------------------------
    def _build_script_chooser(self) -> None:
        page = self.pages["script"]
        assert isinstance(page, StepPage)
        row = QHBoxLayout()
        row.setSpacing(8)
        label = QLabel("Script:")
        label.setObjectName("targetLabel")
        self.script_label = QLabel("none chosen")
        self.script_label.setTextFormat(Qt.TextFormat.PlainText)  # report and path text, shown as is
        self.script_label.setObjectName("scriptPath")
        self.script_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.script_button = QPushButton("Choose script or notebook…")
        self.script_button.clicked.connect(self.choose_script)
        row.addWidget(label)
        row.addWidget(self.script_label, 1)
        row.addWidget(self.script_button)
        page.header_slot.addLayout(row)
        panel = ScriptRunPanel()
        steps = str(self.settings.value("script_run_steps", "") or "")
        seconds = str(self.settings.value("script_run_seconds", "") or "")
        panel.restore(
            str(self.settings.value("script_run_args", "") or ""),
            int(steps) if steps.isdigit() else None if steps == "none" else DEFAULT_STEPS,
            float(seconds) if seconds.isdigit() else DEFAULT_SECONDS,
        )
        panel.changed.connect(self._on_script_run_changed)
        page.header_slot.addWidget(panel)
        self.script_run_panel = panel
        page.pending_hint = (
            "Optional. Choose the training script or notebook your code runs: Run all leaves "
            "this step out until you do."
        )
        last = str(self.settings.value("script", "") or "")
        if last and os.path.isfile(last):
            self.set_script(last, run=False)
        self._update_script_run_panel()

    def _on_script_run_changed(self) -> None:
        """The run asked for goes to the flow (read when the step next runs); arguments and limits are
        remembered, the opt-in is not (running the script is asked for anew in each session)."""
        panel = self.script_run_panel
        if panel is None:
            return
        self.flow.set_script_run(panel.request())
        self.settings.setValue("script_run_args", panel.args.text())
        self.settings.setValue("script_run_steps", str(panel.steps.value()) if panel.use_steps.isChecked() else "none")
        self.settings.setValue("script_run_seconds", str(panel.seconds.value()))
        page = self._page("script")
        assert isinstance(page, StepPage)
        page.run_words = (
            ("Read and run it", "Read and run it again") if panel.request() else ("Run this step", "Run again")
        )
        page.run.setText(page.run_text(self.flow.state("script").status))

    def _update_script_run_panel(self) -> None:
        """What the run would use (the target interpreter, the script's folder), or why it cannot run."""
        panel = self.script_run_panel
        if panel is None:
            return

        path = self.flow.context.script
        panel.setVisible(self.flow.interactive)  # a report read here has nothing to run
        why = (
            "this is a report from elsewhere" if not self.flow.interactive else run_unavailable(self.flow.context, path)
        )
        panel.set_context(
            python=target_python(self.flow.context), folder=working_dir(path) if path else None, why_not=why
        )
        panel.set_busy(self.busy)
        if (panel.request() is None) != (self.flow.context.script_run is None):
            self._on_script_run_changed()

    def choose_script(self) -> None:

        start = str(self.flow.context.script or self.settings.value("script", "") or Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Choose the training script or notebook to audit",
            start,
            "Python scripts and notebooks (*.py *.ipynb);;All files (*)",
        )
        if path:
            self.set_script(path)

    def set_script(self, path: str, *, run: bool = True) -> None:
        """Audit ``path`` (read, never run) in the script step; its findings join the report."""
        page = self._page("script")
        assert isinstance(page, StepPage)
        rerun = self.flow.set_script(path)
        self.settings.setValue("script", path)
        self.script_label.setText(path)
        self.script_label.setToolTip(plain_tip(path))
        page.pending_hint = "" if path else page.pending_hint
        self._update_script_run_panel()
        self.refresh()
        if run and rerun:
            self.run(rerun)

    # -- environments (issue 5) -------------------------------------------------------------------------------
    @property
    def envs_panel(self) -> EnvironmentsPanel:
        """The environment table, built the first time it is needed, in its own window: opening it never
        resizes the main window nor pushes the wizard down (walkthrough #9)."""
        if self._envs_panel is None:
            from gpuassist.ui.envs_panel import EnvironmentsPanel

            dialog = QDialog(self)
            dialog.setWindowTitle("Python environments on this machine — gpuassist")
            dialog.setModal(False)
            lay = QVBoxLayout(dialog)
            lay.setContentsMargins(0, 0, 0, 0)
            panel = EnvironmentsPanel()
            holder = QScrollArea()  # a narrow screen scrolls the table; the dialog never outgrows the window
            holder.setWidgetResizable(True)
            holder.setFrameShape(QFrame.Shape.NoFrame)
            holder.setWidget(panel)
            lay.addWidget(holder)
            panel.target_picked.connect(self.set_target)
            panel.rescan_requested.connect(self.scan_environments)
            panel.close_requested.connect(lambda: self.envs_button.setChecked(False))
            dialog.finished.connect(lambda _=0: self.envs_button.setChecked(False))
            self._envs_dialog = dialog
            self._envs_panel = panel
            self._envs_key = None
            panel.set_running(self.busy or not self.flow.interactive)
            if self.environments is None and self.flow.source == "report":
                panel.show_message(NO_ENV_TABLE)
            self._refresh_environment_findings()
        return self._envs_panel

    def show_environments_panel(self, visible: bool) -> None:
        """Show or hide the environment table; the first time it is shown, the machine is scanned."""
        if self.envs_button.isChecked() != visible:
            self.envs_button.setChecked(visible)  # toggled() calls back with the same value
            return
        if not visible and self._envs_panel is None:
            return
        self.envs_panel  # noqa: B018 - built on first use
        dialog = self._envs_dialog
        if dialog is None:
            return
        if visible:
            if not dialog.isVisible():
                geo = self.geometry()
                dialog.resize(min(1100, geo.width() - 80), min(480, max(300, geo.height() - 160)))
                dialog.move(geo.x() + (geo.width() - dialog.width()) // 2, geo.y() + 80)
            dialog.show()
            dialog.raise_()
            if self.environments is None and self.envs_worker is None and self.flow.source != "report":
                self.scan_environments()
        elif dialog.isVisible():
            dialog.hide()

    def scan_environments(self) -> bool:
        """Find every interpreter and ask each about its torch, on a worker (seconds; never the UI thread)."""
        if self.envs_worker is not None or self._closing or self.flow.context.simulated:
            return False
        from gpuassist.wizard.environments import scan

        target = self.flow.context.target
        answered = [0]

        def work(emit: Callable[[EnvRowEvent], None], cancel: threading.Event) -> Environments:
            return scan(target, emit, cancel)

        def progress(ev: EnvRowEvent) -> None:
            answered[0] += 1
            self.envs_panel.show_scanning(answered[0])

        def returned(envs: Environments) -> None:
            if self.flow.source == "report":
                return  # a report was opened meanwhile: its own table (or none) is shown
            self.environments = envs.retarget(self.flow.context.target)
            self.flow.set_environments(self.environments.facts)
            self._envs_key = None
            self.refresh()

        def errored(message: str) -> None:
            self.envs_panel.show_message(f"Could not list the environments: {message}")

        def done() -> None:
            self.envs_worker = None

        self.envs_panel.show_scanning()
        self.envs_worker = start_worker(
            work, on_progress=progress, on_returned=returned, on_errored=errored, on_done=done
        )
        return True

    def _refresh_environment_findings(self) -> None:
        """Redraw the table and its findings when the table or the host facts behind them changed (the
        diagnosis says whether there is a GPU, which sets how severe a CUDA build elsewhere is)."""
        envs = self.environments
        host = self.flow.loaded_report if self.flow.source == "report" else self.flow.context.diagnosis
        key = (envs, host)
        same = self._envs_key is not None and all(a is b for a, b in zip(self._envs_key, key, strict=True))
        if envs is None or self._envs_panel is None or same:
            return
        self._envs_key = key
        facts = dict(host.facts.items()) if host is not None else {}
        note = "" if envs.pickable else "from the report"
        self.envs_panel.show_environments(envs, envs.findings(facts), note=note)

    # -- reports in -------------------------------------------------------------------------------------------
    def open_report_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open a gpuassist report, collect_env output or error log",
            str(Path.home()),
            "Reports (*.json *.txt *.log);;All files (*)",
        )
        if path:
            self.open_report_file(path)

    def open_report_file(self, path: str | os.PathLike[str]) -> bool:
        """Read and parse a report, collect_env output or error log and show it. Reading is bounded (a
        regular file only, at most the size cap: a FIFO or /dev/zero is refused at once) and it all runs on
        a worker thread, so the window keeps drawing and can be closed while a large input is parsed."""
        from gpuassist.files import FileError, read_bounded
        from gpuassist.ingest import UnreadableInput, load
        from gpuassist.ingest.text import MAX_BYTES

        p = Path(path)

        def parse() -> Report | str:
            try:
                data = read_bounded(str(p), MAX_BYTES)
            except FileError as exc:
                return f"Cannot read {p.name}: {exc}"
            try:
                return load(data, label=p.name)
            except UnreadableInput as exc:
                return f"Cannot diagnose {p.name}: {exc}"

        return self._load_in_background(parse)

    def open_fleet_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self, "Open a folder of nodes' reports (gpuassist fleet)", str(Path.home())
        )
        if folder:
            self.open_fleet(folder)

    def open_fleet(self, folder: str | os.PathLike[str]) -> Any:
        """A fleet view of ``folder`` in its own window (nodes × findings); double-click a node: its report here."""
        from gpuassist.ui.fleet_view import FleetWindow

        if not os.path.isdir(folder):
            self.show_error(f"Cannot open {folder}: not a folder")
            return None
        window = FleetWindow(open_report=self._open_fleet_node)
        self.fleet_windows.append(window)
        window.load(str(folder))
        window.show()
        return window

    def _open_fleet_node(self, path: str) -> None:
        if self.open_report_file(path):
            self.raise_()
            self.activateWindow()

    def paste_dialog(self) -> None:
        dialog = PasteDialog(self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.load_pasted_text(dialog.text.toPlainText())

    def load_pasted_text(self, text: str) -> bool:
        from gpuassist.ingest import UnreadableInput, load_text

        if not text.strip():
            self.show_error("Nothing was pasted.")
            return False

        def parse() -> Report | str:
            try:
                return load_text(text, label="pasted text")
            except UnreadableInput as exc:
                return f"Cannot diagnose the pasted text: {exc}"

        return self._load_in_background(parse)

    def _load_in_background(self, parse: Callable[[], Report | str]) -> bool:
        """Run ``parse`` (a Report, or the one line saying why not) on a worker thread; the UI thread keeps
        its event loop running meanwhile and shows the result. True when a report is shown."""
        if self.reader_worker is not None and self.reader_worker.running:
            self.show_error("Still reading the previous input.")
            return False
        outcome: list[Report | str] = []
        loop = QEventLoop(self)
        self.statusBar().showMessage("Reading…")
        self.reader_worker = start_worker(
            lambda _emit, _cancel: parse(),
            on_returned=outcome.append,
            on_errored=lambda message: outcome.append(f"Cannot read it: {message}"),
            on_done=loop.quit,
        )
        if self.reader_worker.running:
            loop.exec()
        self.reader_worker = None
        if self._closing or not outcome:
            return False
        result = outcome[0]
        if isinstance(result, str):
            self.show_error(result)
            return False
        self.show_loaded(result)
        return True

    def show_loaded(self, report: Report) -> None:
        """Read a report beside the live session: the live flow is kept as it is and comes back with Close
        report (walkthrough #7: reading a report was a one-way street)."""
        if self.busy:
            self.show_error("Stop the running step first.")
            return
        if self.flow.source != "report":
            self._live = (self.flow, self.environments, self._envs_key)
        reading = Flow(self.flow.steps, StepContext())
        reading.context.summary_status = reading.summary_status
        reading.load_report(report)
        self.flow = reading
        self._update_banner()
        self.show_report_monitor(report)
        from gpuassist.wizard.environments import Environments

        self.environments = Environments.from_report_facts(dict(report.facts.items()))
        self._envs_key = None
        if self.environments is None and self._envs_panel is not None:
            self._envs_panel.show_message(NO_ENV_TABLE)
        self.close_report_button.setVisible(True)
        self.refresh()
        self.go(SUMMARY)
        self.statusBar().showMessage(f"Showing {report.meta.get('source_label') or 'a report'}")

    def close_report(self) -> None:
        """Back to this machine's session: its steps, its verdict and its live monitor, as they were."""
        live = self._live
        if live is None or self.flow.source != "report":
            return
        self.flow, self.environments, self._envs_key = live
        self._live = None
        self.close_report_button.setVisible(False)
        self.monitor_view.setVisible(True)
        self.monitor_view.show_trace(None)
        if self._envs_panel is not None:
            self._envs_key = None
        self._update_banner()
        self.refresh()
        self.go(SUMMARY if self.flow.report() is not None else self.flow.ids[0])
        self.statusBar().showMessage("Back to this machine's session.")

    def show_report_monitor(self, report: Report) -> None:
        """The monitor strip shows the trace stored in the report (``report.monitor``) when it has one."""
        from gpuassist.monitor import Trace

        trace = None
        if report.monitor:
            try:
                trace = Trace.from_dict(report.monitor)
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("report monitor trace unusable: %s", exc)
            if trace is not None and not len(trace):
                trace = None
        # the report's own trace, or no monitor at all: this machine's live plots under someone else's report
        # would mix two machines
        self.monitor_view.setVisible(trace is not None)
        if trace is not None:
            self.monitor_view.show_trace(trace)

    # -- reports out ------------------------------------------------------------------------------------------
    def _on_redact(self, value: bool) -> None:
        self.settings.setValue("redact", "1" if value else "0")

    def export_dialog(self, fmt: str) -> None:
        if fmt != "csv" and self.flow.report() is None:
            self.show_error("Nothing to export yet: run the diagnosis first (Run all ▶).")
            return
        stem = "gpuassist-monitor" if fmt == "csv" else "gpuassist-report"
        start = str(Path(str(self.settings.value("export_dir") or Path.home())) / (stem + EXPORT_SUFFIX[fmt]))
        path, _ = QFileDialog.getSaveFileName(self, "Export", start, EXPORT_FILTERS[fmt])
        if path:
            self.settings.setValue("export_dir", str(Path(path).parent))
            self.export_to(fmt, path)

    def export_text(self, fmt: str) -> str:
        """The exported document: the CLI's assembly (:mod:`gpuassist.wizard.export`) over the same report,
        redacted as chosen, with the monitor's trace of this session (the figure is cropped to the run)."""
        from gpuassist.monitor import trace_to_csv
        from gpuassist.report.redact import redact_report
        from gpuassist.wizard.export import assemble

        if fmt == "csv":
            return trace_to_csv(self.monitor.snapshot())
        report = self.flow.report()
        if report is None:
            raise ValueError("nothing to export yet")
        data = report.to_json()
        if self.flow.source != "report":
            data["monitor"] = self.monitor.snapshot().to_dict(max_points=1200)
        redacted = Report.from_json(redact_report(data, personal=self.summary.redact.isChecked()))
        return assemble(redacted, fmt)

    def export_to(self, fmt: str, path: str | os.PathLike[str]) -> bool:
        from gpuassist.files import write_atomic

        try:
            text = self.export_text(fmt)
            write_atomic(str(path), text)  # whole or not at all: a full disk keeps the previous export
        except Exception as exc:  # whatever failed, the user gets one line (details in the log)
            log.exception("export to %s failed", path)
            msg = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.show_error(f"Cannot export to {path}: {msg}")
            return False
        self.last_export = Path(path)
        self.statusBar().showMessage(f"Exported {fmt.upper()} to {path}")
        return True

    # -- errors and closing -----------------------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        """One line to the user, never a traceback (docs/architecture.md §6)."""
        message = (message.strip().splitlines() or [""])[0]
        self.last_error = message
        log.warning("%s", message)
        self.statusBar().showMessage(message)
        if os.environ.get("GPUASSIST_NO_DIALOGS"):
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "gpuassist", message, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)  # a file name or a paste's words, never markup
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def shutdown(self, budget: float = CLOSE_BUDGET_S) -> bool:
        """Cancel the run (the probe's process group is killed), join the worker and the sampler."""
        self._closing = True
        started = time.monotonic()
        ok = True
        workers = [w for w in (self.worker, self.envs_worker, self.reader_worker) if w is not None]
        for w in workers:
            w.cancel()
        for w in workers:
            if not w.wait(max(0.1, budget - (time.monotonic() - started))):
                ok = False
                log.error("a worker did not stop within %.1f s", budget)
        for fleet in self.fleet_windows:
            ok = fleet.shutdown(max(0.1, budget - (time.monotonic() - started))) and ok
            fleet.close()
        self.monitor_view.stop()
        ok = self.monitor.stop(max(0.1, budget - (time.monotonic() - started))) and ok
        return ok

    def closeEvent(self, event: QCloseEvent) -> None:
        with contextlib.suppress(RuntimeError, TypeError):  # already disconnected
            card_actions().diagnose_requested.disconnect(self._diagnose_offered)
        self.settings.setValue("geometry", self.saveGeometry())
        summary = self.pages.get(SUMMARY)
        if isinstance(summary, SummaryPage):  # not built yet (closed at once): the setting is as it was
            self.settings.setValue("redact", "1" if summary.redact.isChecked() else "0")
        self.settings.sync()
        self.shutdown()
        event.accept()


def step_tags(flow: Flow) -> dict[str, str]:
    """Each step's number in the step list, as its band on the monitor shows it; the steps of one shared
    run (the diagnosis) share one band, tagged with their range ("1–3")."""
    numbers = {s.id: n for n, s in enumerate(flow.steps, 1)}
    tags = {}
    for s in flow.steps:
        group = [numbers[o.id] for o in flow.steps if s.group and o.group == s.group]
        tags[s.id] = f"{min(group)}–{max(group)}" if len(group) > 1 else str(numbers[s.id])
    return tags


_ICONS: dict[str, QIcon] = {}


def status_icon(status: StepStatus) -> QIcon:
    """The step list's status mark: the status glyph in white on a disc of the status colour (the same
    glyphs and colours as the finding cards and the HTML report)."""
    if status.value not in _ICONS:
        size = 64  # drawn large, scaled down: crisp at 100 % and 200 %
        pm = QPixmap(size, size)
        pm.fill(Qt.GlobalColor.transparent)
        p = QPainter(pm)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        colour = QColor(status.colour)
        if status is StepStatus.PENDING:
            p.setPen(QPen(colour, 5))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawEllipse(4, 4, size - 8, size - 8)
        else:
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(colour)
            p.drawEllipse(2, 2, size - 4, size - 4)
            font = QFont()
            font.setPixelSize(34)
            font.setBold(True)
            p.setFont(font)
            p.setPen(QColor("white"))
            p.drawText(pm.rect(), Qt.AlignmentFlag.AlignCenter, status.icon)
        p.end()
        icon = QIcon()
        for mode in (QIcon.Mode.Normal, QIcon.Mode.Selected, QIcon.Mode.Active):
            icon.addPixmap(pm, mode)
        _ICONS[status.value] = icon
    return _ICONS[status.value]
