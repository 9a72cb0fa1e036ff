"""Round 12 (issue #14 item 1): exit 2 only for text with nothing about Python, PyTorch, CUDA, NVIDIA or the GPU.
A question about a Python script that never writes the word "Python" (a file name, code, a traceback) is read and
answered with no claim; unrelated text (a shopping list, a Rust panic, an nginx log) is still refused."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.kinds import about_the_topic
from gpuassist.ingest.python_words import shows_python
from gpuassist.ingest.text import UnreadableInput


@pytest.mark.parametrize(
    "text",
    [
        "my segmentation masks come out empty. should I edit eval_masks.py and set out_channels=4?\n",
        "ran ./scripts/prepare-data.py then the loss stays at 0.69, is that expected?\n",
        "C:\\Users\\ana\\proj\\main.pyw closes at once\n",
        "the notebook demo.ipynb gives different numbers each run\n",
        "Traceback (most recent call last):\n  File \"<stdin>\", line 3, in <module>\nKeyError: 'labels'\n",
        "from mypkg.models import Segmenter\nmodel = Segmenter(depth=5)\n",
        "import numpy as np\nx = np.ones(3)\n",
        "    def forward(self, x):\n        return self.head(x)\n",
        ">>> len(dataset)\n0\n",
    ],
)
def test_text_showing_python_is_read_without_a_claim(text: str) -> None:
    assert shows_python(text) and about_the_topic(text)
    report = load_text(text)
    assert not report.has_error
    assert report.meta["source"] == "error_text"


@pytest.mark.parametrize(
    "text",
    [
        "milk\neggs\nbread x2\ncoffee beans\n",
        "thread 'main' panicked at 'index out of bounds: the len is 3 but the index is 7', src/main.rs:14:5\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
        '203.0.113.9 - - [10/Oct/2024:13:55:36 +0000] "GET /index.php?id=3 HTTP/1.1" 404 512 '
        '"https://tienda.com.py/carrito" "Mozilla/5.0"\n',
        "We import most of our coffee; the class of goods is defined by customs.\n",
        "archive.pyc and notes.py.bak were left in the folder\n",
    ],
)
def test_unrelated_text_is_still_refused(text: str) -> None:
    assert not shows_python(text)
    with pytest.raises(UnreadableInput, match="nothing about Python, PyTorch, CUDA, NVIDIA or a GPU"):
        load_text(text)


def test_words_python_shares_with_other_languages_are_not_python() -> None:
    # JavaScript's TypeError (its stack is read as a traceback kind elsewhere: not decided here)
    js = "TypeError: Cannot read properties of undefined (reading 'map')\n    at App (app.js:12:7)\n"
    assert not shows_python(js)
    assert not shows_python("see www.gov.py/noticias and shop.com.py")
