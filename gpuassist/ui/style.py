"""Look and feel in one place: the stylesheet, fonts and the colours shared with reports and terminal.

Severity colours/icons come from :mod:`gpuassist.findings` (via StepStatus) so the GUI, the HTML report
and the terminal agree (docs/architecture.md §7). Sizes are in points/em-ish units so 200 % scaling stays aligned.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase

SIMULATED_BG = "#ffd600"
SIMULATED_FG = "#1a1a1a"
REPORT_BG = "#e3f2fd"
MUTED = "#5f6b7a"
BORDER = "#d7dce2"
SURFACE = "#ffffff"
WINDOW_BG = "#f4f6f8"

STYLESHEET = f"""
QMainWindow, QWidget#central {{ background: {WINDOW_BG}; }}
QWidget#topbar {{ background: {SURFACE}; border-bottom: 1px solid {BORDER}; }}
QLabel#targetLabel {{ font-weight: 600; }}
QLabel#scriptPath {{ background: {SURFACE}; border: 1px solid {BORDER}; border-radius: 4px; padding: 4px 8px; }}
QLabel#targetInfo {{ color: {MUTED}; }}
QLabel#banner {{ padding: 6px 12px; font-weight: 600; }}
QListWidget#steps {{ background: {SURFACE}; border: none; border-right: 1px solid {BORDER}; outline: 0;
    font-size: 10.5pt; }}
QListWidget#steps::item {{ padding: 8px 10px; border-left: 3px solid transparent; color: #1f2933; }}
QListWidget#steps::item:selected {{ background: #e8f0fe; border-left: 3px solid #1a73e8; color: #1f2933; }}
QScrollArea#pageScroll {{ border: none; background: {WINDOW_BG}; }}
QWidget#pageBody {{ background: {WINDOW_BG}; }}
QLabel#pageTitle {{ font-size: 16pt; font-weight: 600; }}
QLabel#stepOf {{ color: {MUTED}; }}
QLabel#question {{ font-size: 11pt; color: #1f2933; }}
QLabel#explanation {{ color: {MUTED}; }}
QLabel#statusChip {{ border-radius: 9px; padding: 2px 10px; font-weight: 600; color: white; }}
QFrame#note {{ background: #eef1f4; border: 1px solid {BORDER}; border-radius: 6px; }}
QFrame#card {{ background: {SURFACE}; border: 1px solid {BORDER}; border-radius: 6px; }}
QLabel#cardTitle {{ font-size: 11pt; font-weight: 600; }}
QLabel#cardId {{ color: {MUTED}; }}
QLabel#fixLabel, QLabel#evidenceHeader {{ font-weight: 600; }}
QFrame#embeddedCard {{ background: transparent; border: none; }}
QFrame#absent {{ background: #eef1f4; border: 1px solid {BORDER}; border-radius: 6px; }}
QLabel#th {{ font-weight: 600; color: {MUTED}; padding: 4px 10px; border-bottom: 1px solid {BORDER}; }}
QLabel#td {{ padding: 4px 10px; border-bottom: 1px solid #eef1f4; }}
QLabel#tdHi {{ padding: 4px 10px; background: #e8f0fe; font-weight: 600; border-bottom: 1px solid #c6dafc; }}
QLabel#fix {{ background: #f6f8fa; border: 1px solid {BORDER}; border-radius: 4px; padding: 6px 8px; }}
QLabel#evidenceKey {{ color: {MUTED}; }}
QFrame#verdict {{ background: {SURFACE}; border: 1px solid {BORDER}; border-radius: 8px; }}
QLabel#verdictHeadline {{ font-size: 17pt; font-weight: 700; }}
QLabel#sectionTitle {{ font-size: 12pt; font-weight: 600; margin-top: 6px; }}
QWidget#monitor {{ background: {SURFACE}; border-top: 1px solid {BORDER}; }}
QLabel#monitorInfo {{ color: {MUTED}; }}
QLabel#monitorLegend {{ color: #1f2933; padding: 0 2px; }}
QPushButton {{ padding: 5px 12px; }}
QPushButton#primary {{ background: #1a73e8; color: white; border: 1px solid #1666cc; border-radius: 4px;
    font-weight: 600; padding: 5px 14px; }}
QPushButton#primary:disabled {{ background: #9bbcf0; border-color: #9bbcf0; }}
QPushButton#danger {{ color: #c62828; }}
QPushButton#danger:disabled {{ color: #aab2bd; }}
QProgressBar {{ border: 1px solid {BORDER}; border-radius: 4px; background: {SURFACE}; height: 14px;
    text-align: center; }}
QProgressBar::chunk {{ background: #1a73e8; border-radius: 3px; }}
"""


def mono_font() -> QFont:
    """The system's fixed-pitch font: commands must be copied exactly, and read as commands."""
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
