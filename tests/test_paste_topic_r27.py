"""Round 27 (issue #14, item 1): a paste made only of a Python library's import warning ("No module named 'x'",
re-printed by xFormers about Triton) and tqdm's training progress bar is about Python and the GPU stack: it is
read (and, with nothing wrong in it, answered with no claim), never refused with exit 2. A shopping list, a Rust
panic and a JavaScript error stay refused. Synthetic texts."""

from __future__ import annotations

import pytest

from gpuassist.ingest import UnreadableInput, load_text
from gpuassist.ingest.kinds import about_the_topic
from gpuassist.ingest.python_words import shows_python


def test_missing_module_warning_and_progress_bar_are_read_without_claim() -> None:
    text = (
        "训练时一直出现这个提示，正常吗？\n"
        "Some optimisations are off. Error caught was: No module named 'fused_kernels'\n"
        "epoch:  42%|████▏     | 420/1000 [01:10<01:37,  5.95it/s, loss=0.301]\n"
    )
    report = load_text(text)
    assert not report.has_error


@pytest.mark.parametrize(
    "line",
    [
        "Error caught was: No module named 'apex.amp'",
        "train: 100%|██████████| 50/50 [00:12<00:00,  4.01it/s]",
        "step:   3%|▎         | 3/100 [00:09<04:51,  3.00s/it]",
    ],
)
def test_python_signs(line: str) -> None:
    assert shows_python(line)


def test_gpu_kernel_library_names_are_the_topic() -> None:
    assert about_the_topic("A matching Triton is not available, some optimizations will not be enabled.")
    assert about_the_topic("the xformers wheel does not match")


@pytest.mark.parametrize(
    "text",
    [
        "Shopping list:\n- 2 kg apples | 3/4 [done]\n- bread\n- no module named here, just milk\n",
        "thread 'main' panicked at 'index out of bounds: the len is 3 but the index is 7', src/main.rs:4:5\n",
        "Uncaught TypeError: Cannot read properties of undefined (reading 'map')\n    at render (app.js:12:9)\n",
    ],
)
def test_other_texts_stay_refused(text: str) -> None:
    with pytest.raises(UnreadableInput):
        load_text(text)
