"""The "Also run it" box of the Your script page: opt in to running the script, its arguments, when it stops.

A thin view: the request it builds (:class:`~gpuassist.wizard.script_run.RunRequest`), the words of why a
script cannot be run, and the run itself are Qt-free (:mod:`gpuassist.wizard.script_run`). Before anything
runs, the box says plainly that this executes the user's own code, with which interpreter and in which
folder; the static audit above it never runs anything.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gpuassist.findings import Severity
from gpuassist.ui.cards import wrap_label
from gpuassist.wizard.model import (
    DEFAULT_SECONDS,
    DEFAULT_STEPS,
    MAX_SECONDS,
    MAX_STEPS,
    RunRequest,
    RunRequestError,
)

WARNING = Severity.WARNING


class ScriptRunPanel(QFrame):
    """Emits ``changed`` whenever the request changes (ticked, arguments, limits)."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("card")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 10, 14, 12)
        lay.setSpacing(8)
        self.enabled = QCheckBox("Also run it, to measure what it really does")
        self.enabled.setObjectName("runToggle")
        self.enabled.setToolTip(
            "Runs the script for a few steps with gpuassist's instruments: operators per "
            "device, copies, lines that wait for the GPU, data loading vs compute"
        )
        lay.addWidget(self.enabled)
        self.warning = wrap_label("", "runWarning")
        self.warning.setStyleSheet(f"color: {WARNING.colour};")
        lay.addWidget(self.warning)
        self.unavailable = wrap_label("", "explanation")
        self.unavailable.setVisible(False)
        lay.addWidget(self.unavailable)

        self.options = QWidget()  # arguments and limits: hidden where the script cannot be run
        grid = QGridLayout(self.options)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(6)
        args_label = QLabel("Arguments")
        args_label.setObjectName("evidenceKey")
        self.args = QLineEdit()
        self.args.setPlaceholderText(
            "what follows the script's name on the command line, e.g. --epochs 1 --batch-size 64"
        )
        self.args.setClearButtonEnabled(True)
        self.args_error = wrap_label("", "argsError", selectable=False)
        self.args_error.setStyleSheet(f"color: {Severity.ERROR.colour};")
        self.args_error.setVisible(False)
        grid.addWidget(args_label, 0, 0)
        grid.addWidget(self.args, 0, 1)
        grid.addWidget(self.args_error, 1, 1)
        stop_label = QLabel("Stop it after")
        stop_label.setObjectName("evidenceKey")
        limits = QHBoxLayout()
        limits.setSpacing(6)
        self.use_steps = QCheckBox()
        self.use_steps.setChecked(True)
        self.use_steps.setToolTip("Untick to stop it by time only")
        self.steps = QSpinBox()
        self.steps.setRange(1, MAX_STEPS)
        self.steps.setValue(DEFAULT_STEPS)
        self.steps.setAccelerated(True)
        self.steps_label = QLabel("optimizer steps, or after")
        self.seconds = QSpinBox()
        self.seconds.setRange(1, int(MAX_SECONDS))
        self.seconds.setValue(int(DEFAULT_SECONDS))
        self.seconds.setSuffix(" s")
        self.seconds.setAccelerated(True)
        self.seconds_label = QLabel("at the latest")
        for w in (self.use_steps, self.steps, self.steps_label, self.seconds, self.seconds_label):
            limits.addWidget(w)
        limits.addStretch(1)
        grid.addWidget(stop_label, 2, 0)
        grid.addLayout(limits, 2, 1)
        grid.setColumnStretch(1, 1)
        lay.addWidget(self.options)
        self.inputs = [
            args_label,
            self.args,
            stop_label,
            self.use_steps,
            self.steps,
            self.steps_label,
            self.seconds,
            self.seconds_label,
        ]

        self.enabled.toggled.connect(self._on_change)
        self.args.textChanged.connect(self._on_change)
        self.use_steps.toggled.connect(self._on_change)
        self.steps.valueChanged.connect(self._on_change)
        self.seconds.valueChanged.connect(self._on_change)
        self._why_not = ""
        self._busy = False
        self._update_enabled()

    # -- what the user asked for ----------------------------------------------------------------------------
    def request(self) -> RunRequest | None:
        """The run asked for, or None (not ticked, or this script cannot be run here)."""
        if not self.enabled.isChecked() or self._why_not:
            return None
        return RunRequest(
            self.args.text(), self.steps.value() if self.use_steps.isChecked() else None, float(self.seconds.value())
        )

    def restore(self, args: str, steps: int | None, seconds: float) -> None:
        """The last arguments and limits (never the opt-in itself: running is asked for anew each time)."""
        self.args.setText(args)
        self.use_steps.setChecked(steps is not None)
        self.steps.setValue(steps if steps is not None else DEFAULT_STEPS)
        self.seconds.setValue(int(seconds))

    # -- what the page knows ------------------------------------------------------------------------------
    def set_context(self, *, python: str, folder: str | None, why_not: str | None) -> None:
        """Say what would run, where, and with what — or why it cannot run from here."""
        self._why_not = why_not or ""
        if self._why_not:
            self.unavailable.setText(f"Running it is not possible here: {self._why_not}.")
        else:
            self.warning.setText(
                f"⚠  This executes your script — your own code — with the target interpreter {python}, in the "
                f"script's folder {folder}, and stops it at the limit below. Reading it (above) never runs "
                "anything; it only runs when this box is ticked."
            )
        self.unavailable.setVisible(bool(self._why_not))
        self.warning.setVisible(not self._why_not)
        self.options.setVisible(not self._why_not)
        self._update_enabled()

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_enabled()

    def _update_enabled(self) -> None:
        can = not self._why_not and not self._busy
        self.enabled.setEnabled(can)
        for w in self.inputs:
            w.setEnabled(can and self.enabled.isChecked())
        self.steps.setEnabled(can and self.enabled.isChecked() and self.use_steps.isChecked())
        self.steps_label.setText(
            "optimizer steps, or after" if self.use_steps.isChecked() else "optimizer steps: no step limit, stop after"
        )

    def _on_change(self) -> None:
        try:
            RunRequest(self.args.text()).args()
        except RunRequestError as exc:
            self.args_error.setText(str(exc)[0].upper() + str(exc)[1:] + ".")
            self.args_error.setVisible(True)
        else:
            self.args_error.setVisible(False)
        self._update_enabled()
        self.changed.emit()
