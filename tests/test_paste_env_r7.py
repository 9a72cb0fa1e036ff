"""Round 7 (issue #14): collect_env's package rows read as torch copies (ingest/torch_rows.py, the rule
stale_or_shadowed_torch decides) and a conda list the paste cut short named as not read. Synthetic texts."""

from __future__ import annotations

from gpuassist.findings import Severity
from gpuassist.ingest import load_text
from gpuassist.ingest.torch_rows import cut_package_list, torch_dists

HEAD = """Collecting environment information...
PyTorch version: {loaded}
Is debug build: False
CUDA used to build PyTorch: 12.1

OS: Ubuntu 22.04.3 LTS (x86_64)
Python version: 3.10.13 (main) [GCC 11.2.0] (64-bit runtime)
Is CUDA available: True
CUDA runtime version: 12.1.105
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090
Nvidia driver version: 545.23.08
cuDNN version: Could not collect

Versions of relevant libraries:
"""


def _paste(loaded: str, rows: list[str]) -> str:
    return HEAD.format(loaded=loaded) + "\n".join(rows) + "\n"


def _stale(text: str) -> Severity | None:
    found = next((f for f in load_text(text).findings if f.id == "stale_or_shadowed_torch"), None)
    return found.severity if found else None


def test_a_loaded_version_that_no_row_lists_is_an_error() -> None:
    # pip rows elided by the poster; conda lists the pip-installed torch of its active env, Python imports another.
    text = _paste("2.1.2", ["[conda] numpy                     1.26.3   pypi_0    pypi",
                            "[conda] torch                     2.3.0    pypi_0    pypi"])  # fmt: skip
    assert _stale(text) is Severity.ERROR


def test_two_torch_distributions_listed_are_a_second_copy() -> None:
    nightly = "[conda] pytorch-nightly   2.0.0.dev20221230   py3.10_cuda11.7_0   pytorch-nightly"
    text = _paste("1.13.1", ["[pip3] Could not collect", "[conda] torch   1.13.1   <pip>", nightly])
    assert _stale(text) is Severity.WARNING
    assert [d["version"] for d in torch_dists([line for line in text.splitlines() if line.startswith("[")])] == [
        "1.13.1",
        "2.0.0.dev20221230",
    ]


def test_pip_and_conda_rows_of_one_copy_are_not_two() -> None:
    # conda lists what pip installed (pypi_0), pip lists conda's pytorch as torch: one copy seen twice.
    for rows in (
        ["[pip3] torch==2.1.2+cu121", "[conda] torch                     2.1.2+cu121   pypi_0    pypi"],
        ["[pip3] torch==2.1.2", "[conda] pytorch                   2.1.2   py3.10_cuda12.1_cudnn8.9.2_0    pytorch",
         "[conda] pytorch-cuda              12.1    ha16c6d3_5    pytorch",
         "[conda] pytorch-mutex             1.0     cuda          pytorch"],
    ):  # fmt: skip
        assert _stale(_paste("2.1.2+cu121", rows)) is None


def test_a_source_build_listed_by_pip_and_as_develop_is_one_copy() -> None:
    rows = [
        "[pip3] torch==2.2.0a0+git8ac9b20",
        "[conda] torch                     2.2.0a0+git8ac9b20   dev_0    <develop>",
    ]
    assert _stale(_paste("2.2.0a0+git8ac9b20", rows)) is None


HEAD_OLD = HEAD.replace("Collecting environment information...\n", "")


def test_a_conda_list_that_stops_before_a_package_pip_lists_is_named_as_cut() -> None:
    rows = ["[pip3] numpy==1.24.1", "[pip3] torch==2.0.1", "[pip3] torchvision==0.15.2",
            "[conda] mkl                       2023.1.0   h213fc3f_46344",
            "[conda] numpy                     1.24.1     pypi_0    pypi",
            "[conda] torch                     2.0.1      pypi_0    pypi"]  # fmt: skip
    text = _paste("2.0.1", rows)
    assert cut_package_list(text.splitlines()) and "torchvision" in cut_package_list(text.splitlines())[0]
    assert any("cut short" in m for m in load_text(text).meta["missing_facts"])


def test_a_complete_conda_list_or_another_environment_is_not_called_cut() -> None:
    complete = ["[pip3] numpy==1.24.1", "[pip3] torch==2.0.1", "[pip3] torchvision==0.15.2",
                "[conda] numpy                     1.24.1     pypi_0    pypi",
                "[conda] torch                     2.0.1      pypi_0    pypi",
                "[conda] torchvision               0.15.2     pypi_0    pypi"]  # fmt: skip
    # pip of another interpreter (its numpy is not in the active conda env): the rows cannot be compared.
    other_env = ["[pip3] numpy==1.21.0", "[pip3] torch==1.10.0", "[pip3] torchvision==0.11.1",
                 "[conda] numpy                     1.24.1     py310h5f9d8c6_0",
                 "[conda] pytorch                   2.0.1      py3.10_cuda11.8_cudnn8.7.0_0    pytorch"]  # fmt: skip
    # something after the conda rows: the paste did not end inside the list.
    followed = [*complete[:5], "", "Traceback (most recent call last):"]
    for rows in (complete, other_env, followed):
        assert cut_package_list(_paste("2.0.1", rows).splitlines()) == []


def test_a_conda_package_whose_torch_carries_a_post_release_is_one_copy() -> None:
    # conda's pytorch 1.0.1 imports as torch 1.0.1.post2 and pip lists it so; 2.10 is not 2.1.
    assert (
        len(
            torch_dists(
                ["[pip3] torch==1.0.1.post2", "[conda] pytorch  1.0.1  py3.7_cuda10.0.130_cudnn7.4.2_2  pytorch"]
            )
        )
        == 1
    )
    assert len(torch_dists(["[pip3] torch==2.10.0", "[conda] torch  2.1.0  pypi_0  pypi"])) == 2
    rows = ["[pip3] torch==1.0.1.post2", "[conda] pytorch  1.0.1  py3.7_cuda10.0.130_cudnn7.4.2_2  pytorch"]
    assert _stale(_paste("1.0.1.post2", rows)) is None


def test_a_paste_that_ends_inside_a_package_row_is_named_as_cut() -> None:
    cut = _paste(
        "2.0.1",
        ["[pip3] numpy==1.24.1", "[pip3] torch==2.0.1", "[conda] numpy   1.24.1   pypi_0   pypi", "[conda] tor"],
    )
    assert any("ends inside" in m for m in load_text(cut).meta["missing_facts"])
    whole = _paste("2.0.1", ["[pip3] Could not collect", "[conda] Could not collect"])
    assert not any("ends inside" in m for m in load_text(whole).meta["missing_facts"])


CONDA_LIST = """$ conda list | grep torch
pytorch                   2.1.0           py3.10_cuda12.1_cudnn8.9.2_0    pytorch
pytorch-cuda              12.1                 ha16c6d3_5    pytorch
torchvision               0.16.0              py310_cu121    pytorch
$ python -c "import torch; print(torch.__version__, torch.cuda.is_available())"
{version} True
"""


def test_a_conda_list_row_and_another_imported_version_are_a_second_copy() -> None:
    # conda installed 2.1.0; the interpreter imports a 1.12.1 from somewhere else (~/.local, PYTHONPATH, another env).
    ids = [f.id for f in load_text(CONDA_LIST.format(version="1.12.1+cu116")).findings]
    assert ids and ids[0] == "stale_or_shadowed_torch"


def test_a_conda_list_row_of_the_imported_version_or_an_install_in_between_is_no_second_copy() -> None:
    same = [f.id for f in load_text(CONDA_LIST.format(version="2.1.0")).findings]
    assert "stale_or_shadowed_torch" not in same
    installed = CONDA_LIST.format(version="1.12.1+cu116").replace(
        "$ python", "$ conda install pytorch-cuda=12.1 -c pytorch -c nvidia\nExecuting transaction: done\n$ python"
    )
    assert "stale_or_shadowed_torch" not in [f.id for f in load_text(installed).findings]


def test_a_cuda_pip_row_beside_a_cpu_conda_build_of_the_same_version_is_two_copies() -> None:
    rows = ["[pip3] torch==2.1.0+cu121", "[conda] pytorch  2.1.0  py3.10_cpu_0  pytorch"]
    assert len(torch_dists(rows)) == 2
    assert (
        len(torch_dists(["[pip3] torch==2.1.0+cu121", "[conda] pytorch  2.1.0  py3.10_cuda12.1_cudnn8.9.2_0  pytorch"]))
        == 1
    )


def test_conda_s_own_pytorch_row_is_placed_by_conda_s_name() -> None:
    rows = ["[pip3] numpy==1.24.1", "[pip3] torch==2.0.1", "[pip3] torchvision==0.15.2",
            "[conda] numpy                     1.24.1     py310h5f9d8c6_0",
            "[conda] pytorch                   2.0.1      py3.10_cuda11.8_cudnn8.7.0_0    pytorch"]  # fmt: skip
    assert "torchvision" in cut_package_list(_paste("2.0.1", rows).splitlines())[0]
    complete = [*rows, "[conda] torchvision               0.15.2     py310_cu118    pytorch"]
    assert cut_package_list(_paste("2.0.1", complete).splitlines()) == []
