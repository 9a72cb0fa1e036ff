"""Whether a text shows Python itself: a script's file name, a traceback, an import line, a definition.

Issue #14 item 1 refuses (exit 2) only text with nothing about Python, PyTorch, CUDA, NVIDIA or the GPU. A user
who asks about their training script ("should I change train.py ... net = UNet(n_classes=2)?") pastes text about
a Python program without writing the word "Python"; that text is read (and, with nothing about the GPU in it,
answered with no claim), not refused. The signs are the language's own forms (the Python Language Reference's
import statement, def and class; the interpreter's traceback header and its 'File "...", line N' frames, the
REPL's '>>> ' prompt; '.py'/'.pyw'/'.pyi'/'.ipynb' file names), never a word a non-Python text shares: "import"
in a sentence, a domain under Paraguay's '.py' followed by a path, JavaScript's "TypeError:". Python's warning
categories (UserWarning, FutureWarning, ...) and its built-in exceptions that JavaScript lacks (ModuleNotFoundError,
ValueError, RuntimeError, ...) printed in Python's "Name: message" form count as the interpreter's output.
"""

from __future__ import annotations

import re

MAX_SCAN = 2_000_000

# In-line spacing is [ \t], never \s: a pattern anchored at each line start must not run across lines (a paste of
# blank lines would cost quadratic time).
PYTHON_SIGN = re.compile(
    # a Python file name: train.py, ./tools/test.py, C:\src\app.pyw, demo.ipynb (not "x.py/path", "a.b.py", "x.pyc")
    # Chinese and Japanese are written without spaces: a CJK character right after the name ends it ("运行train.py和")
    r"(?<![\w.-])[\w-]+\.(?:pyw?|pyi|ipynb)(?![A-Za-z0-9_/-]|[^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|\.\w)|"
    r"Traceback \(most recent call last\)|"
    r"^[ \t]*File \"[^\"\n]+\", line \d+|"
    r"^[ \t]*from[ \t]+[A-Za-z_][\w.]*[ \t]+import[ \t]+(?:[A-Za-z_*(])|"
    r"^[ \t]*import[ \t]+[A-Za-z_][\w.]*(?:[ \t]+as[ \t]+\w+)?"
    r"(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*(?:[ \t]+as[ \t]+\w+)?)*[ \t]*$|"
    r"^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\([^)\n]*\)[ \t]*(?:->[^:\n]+)?:[ \t]*$|"
    r"^[ \t]*class[ \t]+\w+[ \t]*(?:\([^)\n]*\))?[ \t]*:[ \t]*$|"
    r"^>>> \S|"
    # the warnings module's output: its category (Python's built-in warning classes) and the source line it echoes
    r"\b(?:User|Deprecation|PendingDeprecation|Syntax|Runtime|Future|Import|Unicode|Bytes|Resource|Encoding)"
    r"Warning:[ \t]|^[ \t]*warnings\.warn\(|"
    # an exception line in Python's form ("Name: message" at the line start) for built-in exceptions JavaScript
    # does not have (its TypeError, RangeError, ReferenceError and SyntaxError stay unread)
    r"^[ \t]*(?:ModuleNotFoundError|ImportError|AttributeError|ValueError|RuntimeError|FileNotFoundError|"
    r"AssertionError|UnboundLocalError|IndentationError|KeyError|IndexError|OSError|ZeroDivisionError):[ \t]|"
    # the import system's own message for a missing module, with the name quoted by repr() (CPython's
    # Python/import.c and importlib._bootstrap: "No module named %R"), also where a library re-prints it in its
    # own warning ("Error caught was: No module named 'triton'", xformers)
    r"\bNo module named '[A-Za-z_][\w.]*'|"
    # tqdm's default bar, Python's progress-bar library (its format_meter: "{l_bar}{bar}| {n_fmt}/{total_fmt}
    # [{elapsed}<{remaining}, {rate_fmt}{postfix}]"): "| 780/7800 [05:04<45:36,  2.57it/s" names tqdm by its shape
    r"\|[ \t]*\d+/\d+[ \t]+\[(?:\d+:)?\d\d:\d\d<(?:(?:\d+:)?\d\d:\d\d|\?),"
    r"[ \t]+(?:\d+(?:\.\d+)?|\?)(?:it|s)/(?:s|it)\b",
    re.MULTILINE,
)


def shows_python(text: str) -> bool:
    """Whether the text shows Python source, a Python file or the interpreter's output (see the module doc)."""
    return PYTHON_SIGN.search(text[:MAX_SCAN]) is not None
