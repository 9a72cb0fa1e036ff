"""Round 13 (issue #14 item 1): a platform fact alone (a Windows path says Windows, a kernel banner says Linux) does
not make a text about Python, PyTorch, CUDA, NVIDIA or the GPU: such a text is refused (exit 2). A Windows path to
python.exe, a .py file, site-packages\\torch or nvcuda.dll still shows the topic and is read."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text
from gpuassist.ingest.kinds import PLATFORM_FACTS, facts_about_the_topic
from gpuassist.ingest.text import UnreadableInput

REFUSED = "nothing about Python, PyTorch, CUDA, NVIDIA or a GPU"


@pytest.mark.parametrize(
    "text",
    [
        "I saved my shopping list in C:\\Users\\x\\Documents\\notes.txt and now it is gone\n",
        "copy D:\\games\\save.dat to E:\\backup before the update\n",
        "C:\\Program Files\\Mozilla Firefox\\firefox.exe stopped responding\n",
        "PS C:\\Users\\ana> dir\n    Directory: C:\\Users\\ana\\Music\n",
    ],
)
def test_a_windows_path_alone_is_refused(text: str) -> None:
    with pytest.raises(UnreadableInput, match=REFUSED):
        load_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "C:\\Users\\x\\AppData\\Local\\Programs\\Python\\Python311\\python.exe closes at once\n",
        "C:\\Users\\x\\proj\\train.py stops after the first epoch\n",
        "C:\\Users\\x\\venv\\Lib\\site-packages\\torch\\lib is where it looks\n",
        "could not load C:\\Windows\\System32\\nvcuda.dll\n",
        # the GPU by its model, or a program's device choice, beside a path that only says Windows
        'Error loading "C:\\Games\\engine\\bin\\physx_64.dll" (Windows 10, GTX 1060)\n',
        "C:\\Users\\x\\app> start.bat\nUsing device_type cpu\n",
    ],
)
def test_a_windows_path_to_the_topic_is_read(text: str) -> None:
    report = load_text(text)
    assert report.meta["source"] == "error_text"
    assert report.facts.value("host.os") == "Windows"


def test_platform_facts_alone_are_not_the_topic() -> None:
    assert not facts_about_the_topic({"host.os": "Windows"})
    assert not facts_about_the_topic(dict.fromkeys(PLATFORM_FACTS, "x"))
    assert facts_about_the_topic({"host.os": "Windows", "driver.version": "551.61"})
    assert facts_about_the_topic({"platform.jetson": True})  # NVIDIA's board is the topic
