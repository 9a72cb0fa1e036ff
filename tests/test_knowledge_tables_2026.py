"""The late-2026 facts of docs/knowledge/wheels-2026-11.md (measured from the PyPI wheels) as the tables and
the rules use them: PyPI defaults, arch lists without PTX, 2.15 and the end of cu126, minor-version
compatibility, the GPU compute-capability table, companion packages and the staleness finding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpuassist.facts import Facts
from gpuassist.findings import Severity
from gpuassist.knowledge import compat
from gpuassist.knowledge.wheels import (
    arch_covers,
    capability_from_name,
    companion_requirements,
    driver_max_cuda,
    driver_supports_variant,
    family_min_driver,
    min_driver_for_variant,
    nearest_releases,
    needs_ptx_jit,
    newest_cuda,
    newest_known_capability,
    newest_release,
    pypi_default_variant,
    recommend_wheel,
    release_variants,
    tables_as_of,
    wheel_arch_list,
    wheel_builds,
)
from gpuassist.rules import fixes, view
from gpuassist.rules.driver import driver_too_old
from gpuassist.rules.staleness import knowledge_tables_outdated

X86 = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
ARM = ("sm_80", "sm_90", "sm_100", "sm_110", "sm_120")


# ---------------------------------------------------------------- what PyPI serves (measured)


@pytest.mark.parametrize(
    ("release", "x86", "arm"),
    [
        ("2.5.1", "cu124", "cpu"),
        ("2.9.1", "cu128", "cpu"),
        ("2.10.0", "cu128", "cpu"),
        ("2.11.0", "cu130", "cu130"),
        ("2.12.1", "cu130", "cu130"),
        ("2.13.0", "cu130", "cu130"),
        ("2.14.1", "cu130", "cu130"),
        ("2.15.0", "cu132", "cu132"),
    ],
)
def test_pypi_default_variant(release: str, x86: str, arm: str | None) -> None:
    assert pypi_default_variant(release, "linux_x86_64") == x86
    assert pypi_default_variant(release, "linux_aarch64") == arm
    assert pypi_default_variant(release, "windows") == "cpu"
    assert pypi_default_variant(release, "darwin") == "cpu"


@pytest.mark.parametrize("release", ["2.11", "2.12", "2.13", "2.14", "2.15"])
def test_measured_pypi_builds_have_no_ptx(release: str) -> None:
    variant = pypi_default_variant(release, "linux_x86_64") or ""
    assert wheel_arch_list(release, variant, "linux_x86_64") == X86
    assert wheel_arch_list(release, variant, "linux_aarch64") == ARM
    # no PTX: a GPU newer than sm_120's major gets "no kernel image", never a JIT fallback
    assert not arch_covers("13.0", X86)


def test_no_build_in_the_tables_claims_ptx() -> None:
    """Only the measured PyPI builds could be read; none carries PTX, so none is assumed anywhere."""
    for build in wheel_builds():
        for arch in (build.linux_x86_64 or ()) + (build.linux_aarch64 or ()):
            assert not arch.startswith("compute_"), (build.variant, build.first, arch)


def test_215_drops_cu126_so_214_is_the_last_for_maxwell_pascal_volta() -> None:
    assert release_variants("2.15") == ("cu130", "cu132")
    assert "cu126" in release_variants("2.14")
    assert newest_release() == "2.15"
    for cc in ("5.0", "5.2", "6.0", "6.1", "7.0"):
        assert not any(
            arch_covers(cc, wheel_arch_list("2.15", v, "linux_x86_64") or (), ptx=False)
            for v in release_variants("2.15")
        ), cc
        assert arch_covers(cc, wheel_arch_list("2.14", "cu126", "linux_x86_64") or (), ptx=False), cc


@pytest.mark.parametrize(
    ("current", "cc", "release", "variant"),
    [
        ("2.15.0", "6.1", "2.14", "cu126"),  # Pascal on the 2.15 default (cu132)
        ("2.15.0", "5.2", "2.14", "cu126"),  # Maxwell
        ("2.15.0", "7.0", "2.14", "cu126"),  # Volta
        ("2.14.1", "6.1", "2.14.1", "cu126"),  # the release is kept: 2.14 still has cu126
        ("2.13.0", "7.0", "2.13.0", "cu126"),
        ("2.11.0", "6.0", "2.11.0", "cu126"),
        ("2.10.0", "6.1", "2.10.0", "cu126"),
        ("2.8.0", "3.7", "2.7", "cu118"),  # Kepler: cu118 of 2.7 and older
    ],
)
def test_old_gpu_on_each_release_default_wheel(current: str, cc: str, release: str, variant: str) -> None:
    default = pypi_default_variant(current, "linux_x86_64")
    if default:
        assert not arch_covers(cc, wheel_arch_list(current, default, "linux_x86_64") or (), ptx=False)
    c = recommend_wheel(
        os="Linux",
        machine="x86_64",
        python_version="3.12",
        driver_cuda=13000,
        capabilities=[cc],
        current_release=current,
    )
    assert c is not None and (c.release, c.variant) == (release, variant)


def test_nearest_release_order() -> None:
    assert nearest_releases("2.15.0")[:3] == ["2.15", "2.14", "2.13"]
    assert nearest_releases("2.10.0")[:3] == ["2.10", "2.11", "2.9"]  # the newer of two equally near first
    assert nearest_releases("2.16.0")[0] == "2.15"  # newer than the tables: the newest known
    assert nearest_releases(None)[0] == "2.15"


def test_python_tags_decide_the_release() -> None:
    # 2.15 has no cp310: a Python 3.10 user on 2.15 is sent to 2.14; 3.15 needs 2.15
    c = recommend_wheel(
        os="Linux",
        machine="x86_64",
        python_version="3.10",
        driver_cuda=13000,
        capabilities=["8.9"],
        current_release="2.15.0",
    )
    assert c is not None and c.release == "2.14"
    c = recommend_wheel(
        os="Linux",
        machine="x86_64",
        python_version="3.15",
        driver_cuda=13020,
        capabilities=["8.9"],
        current_release="2.14.1",
    )
    assert c is not None and (c.release, c.variant) == ("2.15", "cu132")


# ---------------------------------------------------------------- drivers: Table 3 rows and MVC


@pytest.mark.parametrize(
    ("driver", "os", "cuda"),
    [
        ("580.88", "Windows", 13000),  # CUDA 13.0 on Windows needs 580.88 (PyTorch 2.12 notice)
        ("580.76", "Windows", 12090),
        ("610.43.02", "Linux", 13030),
        ("615.10", "Linux", 13030),  # R615 vs R616 unconfirmed for 13.4: the higher is recorded
        ("616.20.01", "Linux", 13040),
    ],
)
def test_new_driver_rows(driver: str, os: str, cuda: int) -> None:
    assert driver_max_cuda(driver, os) == cuda


@pytest.mark.parametrize(
    ("variant", "linux", "windows"),
    [
        ("cu132", "580", "580.88"),
        ("cu130", "580", "580.88"),
        ("cu128", "525.60.13", "527.41"),
        ("cu126", "525.60.13", "527.41"),
        ("cu118", "450.80.02", "452.39"),
        ("cu102", "440.33", "441.22"),
    ],
)
def test_family_minimum_is_what_a_wheel_needs(variant: str, linux: str, windows: str) -> None:
    assert family_min_driver(variant, "Linux") == linux
    assert family_min_driver(variant, "Windows") == windows


def test_minor_version_compatibility_both_ways() -> None:
    # runs: a newer minor on an older driver of the same family
    assert driver_supports_variant(13000, "cu132").via == "minor_version_compat"
    assert driver_supports_variant(12020, "cu128", driver_version="535.183.01").ok
    # does not run: across majors, below the family floor, before CUDA 11
    assert not driver_supports_variant(12080, "cu130").ok
    assert not driver_supports_variant(12090, "cu132", driver_version="575.57.08").ok
    assert not driver_supports_variant(11000, "cu118", driver_version="450.51.05").ok  # floor 450.80.02
    assert not driver_supports_variant(10010, "cu102").ok
    # native is native
    assert driver_supports_variant(13020, "cu132").via == "native"


def test_ptx_jit_is_what_mvc_does_not_cover() -> None:
    assert needs_ptx_jit(["9.0"], ["sm_80", "compute_80"]) == ["9.0"]
    assert needs_ptx_jit(["8.9"], ["sm_80", "compute_80"]) == []  # sm_80 SASS runs on 8.9
    assert needs_ptx_jit(["9.0"], X86) == []


def _facts(**values: Any) -> Facts:
    base = {
        "host.os": "Linux",
        "host.distro": "Ubuntu 24.04",
        "python.machine": "x86_64",
        "python.version": "3.12.3",
        "python.executable": "/venv/bin/python",
        "nvml.status": "ok",
    }
    return Facts({**base, **values})


def _gpu(name: str, cc: str | None) -> dict[str, Any]:
    return {"index": 0, "name": name, "compute_capability": cc}


def test_driver_too_old_is_silent_under_mvc_and_quotes_the_family_minimum() -> None:
    runs = _facts(
        **{
            "torch.version": "2.15.0+cu132",
            "torch.cuda_build": "13.2",
            "torch.arch_list": list(X86),
            "driver.version": "580.95.05",
            "driver.cuda_version": 13000,
            "nvml.gpus": [_gpu("NVIDIA GeForce RTX 4090", "8.9")],
        }
    )
    assert driver_too_old(runs) is None
    old = _facts(
        **{
            "torch.version": "2.15.0+cu132",
            "torch.cuda_build": "13.2",
            "torch.arch_list": list(X86),
            "driver.version": "570.133.07",
            "driver.cuda_version": 12080,
            "nvml.gpus": [_gpu("NVIDIA GeForce RTX 4090", "8.9")],
        }
    )
    f = driver_too_old(old)
    assert f is not None and f.severity == Severity.ERROR
    assert "version 580 or newer; 595.45.04 or newer for all of CUDA 13.2" in f.fix
    # option 2 keeps the driver: the nearest release with a CUDA 12 build for sm_89 is 2.14 (cu126)
    assert '"torch==2.14.*"' in f.fix and "whl/cu126" in f.fix


def test_driver_too_old_when_a_gpu_needs_ptx_jit() -> None:
    facts = _facts(
        **{
            "torch.version": "2.8.0a0+gitba56102",
            "torch.cuda_build": "12.8",
            "torch.arch_list": ["sm_80", "compute_80"],
            "driver.version": "535.183.01",
            "driver.cuda_version": 12020,
            "nvml.gpus": [_gpu("NVIDIA H100 80GB HBM3", "9.0")],
        }
    )
    f = driver_too_old(facts)
    assert f is not None and "PTX" in f.title and "570.26 or newer" in f.fix


# ---------------------------------------------------------------- GPU names


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("Quadro RTX 5000", "7.5"),
        ("Quadro RTX 4000", "7.5"),
        ("Quadro RTX 3000 with Max-Q Design", "7.5"),
        ("Quadro RTX 6000", "7.5"),
        ("Quadro RTX 8000", "7.5"),
        ("NVIDIA RTX 5000 Ada Generation", "8.9"),
        ("NVIDIA RTX 2000 Ada Generation Laptop GPU", "8.9"),
        ("NVIDIA RTX 4000 SFF Ada Generation", "8.9"),
        ("NVIDIA RTX 6000 Ada Generation", "8.9"),
        ("NVIDIA RTX 4500 Ada Generation", "8.9"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
        ("NVIDIA RTX PRO 5000 Blackwell", "12.0"),
        ("NVIDIA RTX PRO 4000 Blackwell", "12.0"),
        ("NVIDIA GeForce RTX 5090", "12.0"),
        ("NVIDIA GeForce RTX 5090 D", "12.0"),
        ("NVIDIA GeForce RTX 5060 Laptop GPU", "12.0"),
        ("NVIDIA GeForce RTX 4090", "8.9"),
        ("NVIDIA GeForce RTX 4060 Laptop GPU", "8.9"),
        ("NVIDIA GeForce RTX 3050 A Laptop GPU", "8.9"),
        ("NVIDIA GeForce RTX 3090", "8.6"),
        ("NVIDIA GeForce RTX 3050 Ti Laptop GPU", "8.6"),
        ("NVIDIA GeForce RTX 2050", "8.6"),
        ("NVIDIA GeForce RTX 2080 Ti", "7.5"),
        ("NVIDIA GeForce GTX 1660 SUPER", "7.5"),
        ("NVIDIA GeForce MX450", "7.5"),
        ("NVIDIA GeForce MX570", "8.6"),
        ("NVIDIA RTX A6000", "8.6"),
        ("NVIDIA RTX A5000", "8.6"),
        ("NVIDIA RTX A4000", "8.6"),
        ("NVIDIA RTX A2000 12GB", "8.6"),
        ("NVIDIA RTX A1000 Laptop GPU", "8.6"),
        ("NVIDIA A2", "8.6"),
        ("NVIDIA A16", "8.6"),
        ("NVIDIA A10", "8.6"),
        ("NVIDIA A10G", "8.6"),
        ("NVIDIA A40", "8.6"),
        ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("NVIDIA A800 80GB PCIe", "8.0"),
        ("NVIDIA A30", "8.0"),
        ("NVIDIA H100 80GB HBM3", "9.0"),
        ("NVIDIA H100 PCIe", "9.0"),
        ("NVIDIA H200", "9.0"),
        ("NVIDIA H800", "9.0"),
        ("NVIDIA H20", "9.0"),
        ("NVIDIA GH200 480GB", "9.0"),
        ("NVIDIA L4", "8.9"),
        ("NVIDIA L40S", "8.9"),
        ("NVIDIA L20", "8.9"),
        ("NVIDIA B200", "10.0"),
        ("NVIDIA GB200", "10.0"),
        ("NVIDIA B300 SXM6 AC", "10.3"),
        ("NVIDIA GB300", "10.3"),
        ("NVIDIA B100", "10.0"),
        ("NVIDIA GB10", "12.1"),
        ("NVIDIA Jetson AGX Thor", "11.0"),
        ("Orin (nvgpu)", "8.7"),
        ("Tesla T4", "7.5"),
        ("NVIDIA T1000 8GB", "7.5"),
        ("NVIDIA T400 4GB", "7.5"),
        ("Quadro T2000", "7.5"),
        ("NVIDIA TITAN RTX", "7.5"),
        ("NVIDIA TITAN V", "7.0"),
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("Quadro GV100", "7.0"),
        ("Tesla P100-PCIE-16GB", "6.0"),
        ("Quadro GP100", "6.0"),
        ("Tesla P40", "6.1"),
        ("Tesla P4", "6.1"),
        ("Quadro P4000", "6.1"),
        ("Quadro P1000", "6.1"),
        ("NVIDIA GeForce GT 1030", "6.1"),
        ("NVIDIA GeForce GTX 1080 Ti", "6.1"),
        ("NVIDIA TITAN Xp", "6.1"),
        ("NVIDIA TITAN X (Pascal)", "6.1"),
        ("NVIDIA GeForce GTX TITAN X", "5.2"),
        ("NVIDIA GeForce GTX 980 Ti", "5.2"),
        ("NVIDIA GeForce GTX 970", "5.2"),
        ("Tesla M60", "5.2"),
        ("Quadro M4000", "5.2"),
        ("NVIDIA GeForce GTX 750 Ti", "5.0"),
        ("Tesla K80", "3.7"),
        ("Tesla K40c", "3.5"),
    ],
)
def test_gpu_table_tells_look_alikes_apart(name: str, cc: str) -> None:
    assert capability_from_name(name) == cc


def test_gpu_table_has_no_guess_for_unknown_names() -> None:
    for name in ("NVIDIA RTX Q9000", "Some Future GPU", "AMD Radeon RX 7900 XTX", "NVIDIA Graphics Device"):
        assert capability_from_name(name) is None, name


def test_workstation_gpu_fix_uses_its_real_architecture() -> None:
    """A paste with only the GPU name: Quadro RTX 5000 is Turing (sm_75), so the CPU-build fix keeps
    torch 2.5.1 with cu124 (which has sm_75), not a Blackwell build."""
    facts = _facts(
        **{
            "torch.version": "2.5.1+cpu",
            "torch.cuda_build": None,
            "driver.version": "550.54.14",
            "nvml.status": None,
            "reported.gpus": [{"index": 0, "name": "Quadro RTX 5000"}],
        }
    )
    text, variant = fixes.cuda_wheel_fix(facts)
    assert variant == "cu124" and "sm_75" in text and '"torch==2.5.1"' in text


# ---------------------------------------------------------------- companions


def test_companion_table_pins() -> None:
    assert companion_requirements("2.5.1", {"torchvision", "torchaudio"}) == (
        "torchvision==0.20.*",
        "torchaudio==2.5.*",
    )
    assert companion_requirements("2.14", {"torchvision"}) == ("torchvision==0.29.*",)
    assert companion_requirements("2.15.0", {"torchaudio"}) == ("torchaudio==2.11.*",)
    assert companion_requirements("2.15.0", set()) == ()
    assert set(compat()["companions"]["torchvision"]) == set(compat()["releases"]["by_release"])


@pytest.mark.parametrize(
    ("facts", "found"),
    [
        ({"torch.companions": [{"name": "torchvision", "version": "0.29.2+cpu"}]}, {"torchvision": "0.29.2+cpu"}),
        (
            {"torch.conda_packages": [{"name": "torchaudio", "version": "2.5.1", "build": "py310_cpu"}]},
            {"torchaudio": "2.5.1"},
        ),
        (
            {
                "reported.libraries": [
                    "[pip3] numpy==2.1.3",
                    "[pip3] torch==2.5.1+cpu",
                    "[pip3] torchvision==0.20.1+cpu",
                    "[conda] torchaudio 2.5.1 py310_cpu pytorch",
                ]
            },
            {"torchvision": "0.20.1+cpu", "torchaudio": "2.5.1"},
        ),
        (
            {"reported.libraries": ["torchvision              0.20.1", "torchaudio==2.5.1"]},
            {"torchvision": "0.20.1", "torchaudio": "2.5.1"},
        ),
    ],
)
def test_companions_from_every_source(facts: dict[str, Any], found: dict[str, str]) -> None:
    assert view.companions(Facts(facts))[0] == found


def test_windows_cpu_fix_keeps_the_release_and_replaces_the_cpu_torchvision() -> None:
    facts = _facts(
        **{
            "host.os": "Windows",
            "python.machine": "AMD64",
            "python.executable": r"C:\venv\python.exe",
            "torch.version": "2.15.0+cpu",
            "torch.cuda_build": None,
            "driver.version": "581.57",
            "driver.cuda_version": 13000,
            "nvml.gpus": [_gpu("NVIDIA GeForce RTX 4070", "8.9")],
            "torch.companions": [{"name": "torchvision", "version": "0.29.2+cpu"}],
        }
    )
    text, variant = fixes.cuda_wheel_fix(facts)
    assert variant == "cu130"
    assert '"torch==2.15.0" "torchvision==0.29.*" --index-url https://download.pytorch.org/whl/cu130' in text
    assert "uninstall -y torch torchvision" in text
    assert "2.14" not in text


# ---------------------------------------------------------------- staleness


def test_table_horizon() -> None:
    assert tables_as_of() == "2026-11-24"
    assert newest_cuda() == 13040 and newest_known_capability() == (12, 1)
    assert min_driver_for_variant("cu132", "Linux") == "595.45.04"


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ({"torch.version": "2.16.0+cu132", "torch.cuda_build": "13.2"}, "torch 2.16.0"),
        ({"torch.version": "2.15.0+cu134", "torch.cuda_build": "13.4"}, "CUDA 13.4 build"),
        ({"torch.version": "2.16.0", "torch.cuda_build": "13.6"}, "CUDA 13.6 build"),
        ({"driver.version": "620.10"}, "driver 620.10"),
        ({"driver.cuda_version": 13060}, "CUDA 13.6"),
        ({"nvml.gpus": [_gpu("NVIDIA RTX Q9000", "13.0")]}, "compute capability 13.0"),
        ({"nvml.status": None, "reported.gpus": [{"index": 0, "name": "NVIDIA RTX Q9000"}]}, "not in their GPU table"),
    ],
)
def test_staleness_is_said_once_with_the_date(values: dict[str, Any], says: str) -> None:
    f = knowledge_tables_outdated(_facts(**values))
    assert f is not None and f.severity == Severity.INFO and says in f.explanation
    assert tables_as_of() in f.title and f.evidence


def test_no_staleness_inside_the_tables() -> None:
    facts = _facts(
        **{
            "torch.version": "2.15.0+cu132",
            "torch.cuda_build": "13.2",
            "driver.version": "595.71.05",
            "driver.cuda_version": 13020,
            "nvml.gpus": [_gpu("NVIDIA GB10", "12.1")],
        }
    )
    assert knowledge_tables_outdated(facts) is None


# ---------------------------------------------------------------- macOS


def test_macos_before_14_stops_at_211() -> None:
    from gpuassist.knowledge.wheels import macos_arm64_newest_release, recommend_cpu_wheel

    assert macos_arm64_newest_release("13.6.7") == "2.11"
    assert macos_arm64_newest_release("11.0") == "2.11"
    assert macos_arm64_newest_release("14.5") is None  # every release fits
    assert macos_arm64_newest_release("not a version") is None
    old = recommend_cpu_wheel(
        os="Darwin", machine="arm64", python_version="3.12", current_release=None, macos_version="13.6"
    )
    assert old.requirement == "torch==2.11.*"
    kept = recommend_cpu_wheel(
        os="Darwin", machine="arm64", python_version="3.12", current_release="2.9.1", macos_version="13.6"
    )
    assert kept.requirement == "torch==2.9.1"


def test_macos_mps_fix_names_the_last_release_for_an_old_macos() -> None:
    from gpuassist.rules.macos import macos_no_cuda_use_mps

    facts = Facts(
        {
            "host.os": "Darwin",
            "python.platform": "darwin",
            "python.machine": "arm64",
            "python.mac_ver": "13.6.7",
            "torch.version": "2.9.1",
            "mps.built": True,
            "mps.available": False,
            "python.executable": "/Users/a/.venv/bin/python",
        }
    )
    f = macos_no_cuda_use_mps(facts)
    assert f is not None and '"torch==2.11.*"' in f.fix and "macOS 14 from 2.12" in f.fix


def test_probe_finds_the_companions_that_import(tmp_path: Path) -> None:
    from gpuassist.probe.probe_script import find_companion_dists

    first, second = tmp_path / "user", tmp_path / "venv"
    (first / "torchvision-0.20.1+cpu.dist-info").mkdir(parents=True)
    (first / "torchvision-0.20.1+cpu.dist-info" / "INSTALLER").write_text("pip\n")
    (second / "torchvision-0.29.2.dist-info").mkdir(parents=True)  # shadowed by the first on the path
    (second / "torchaudio-2.11.0.dist-info").mkdir(parents=True)
    (second / "torchvision_extra-1.0.dist-info").mkdir(parents=True)  # another project
    found = find_companion_dists([str(first), str(second), str(tmp_path / "missing")])
    assert [(d["name"], d["version"], d["local_tag"], d["installer"]) for d in found] == [
        ("torchvision", "0.20.1+cpu", "cpu", "pip"),
        ("torchaudio", "2.11.0", None, None),
    ]


def test_a_gpu_newer_than_every_build_is_not_blamed_on_python() -> None:
    facts = _facts(
        **{
            "torch.version": "2.15.0+cu132",
            "torch.cuda_build": "13.2",
            "driver.cuda_version": 13060,
            "nvml.gpus": [_gpu("NVIDIA RTX Q9000", "13.0")],
        }
    )
    text, variant = fixes.cuda_wheel_fix(facts)
    assert variant is None and "sm_130" in text and "TORCH_CUDA_ARCH_LIST" in text and "2026-11-24" in text
    assert "Create an environment" not in text
    too_new_python = _facts(**{"python.version": "3.16.0", "nvml.gpus": [_gpu("NVIDIA GeForce RTX 4090", "8.9")]})
    text, variant = fixes.cuda_wheel_fix(too_new_python)
    assert variant is None and "Create an environment with a Python that current PyTorch supports" in text


def test_windows_paths_are_quoted_for_windows_shells() -> None:
    assert fixes.quote(r"C:\Users\alice\.venv\Scripts\python.exe") == r"C:\Users\alice\.venv\Scripts\python.exe"
    assert fixes.quote(r"C:\Program Files\Python312\python.exe") == r'"C:\Program Files\Python312\python.exe"'
    assert fixes.quote("/home/a b/python") == "'/home/a b/python'"


@pytest.mark.parametrize("release", ["2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.1", "2.13.0", "2.14.1", "2.15.0"])
@pytest.mark.parametrize("cc", ["5.2", "6.1"])  # Maxwell, Pascal
def test_maxwell_and_pascal_on_every_release_default_wheel(release: str, cc: str) -> None:
    """No PyPI default wheel from 2.8 on runs them; the fix keeps the release with cu126 up to 2.14 and
    names 2.14 (the last release with cu126) from 2.15."""
    default = pypi_default_variant(release, "linux_x86_64")
    assert default in ("cu128", "cu130", "cu132")
    assert not arch_covers(cc, wheel_arch_list(release, default, "linux_x86_64") or (), ptx=False)
    c = recommend_wheel(
        os="Linux",
        machine="x86_64",
        python_version="3.12",
        driver_cuda=13000,
        capabilities=[cc],
        current_release=release,
    )
    expected = (release, "cu126") if release != "2.15.0" else ("2.14", "cu126")
    assert c is not None and (c.release, c.variant) == expected


@pytest.mark.parametrize(
    ("gpu", "current", "driver", "expected"),
    [
        ("NVIDIA GB10", "2.15.0", 13000, ("2.15.0", "cu130")),  # DGX Spark: sm_120 SASS runs on 12.1
        ("NVIDIA GB10", "2.15.0", 13020, ("2.15.0", "cu132")),
        ("NVIDIA GH200 480GB", "2.10.0", 12080, ("2.10.0", "cu128")),  # PyPI's 2.10 is CPU: the index has CUDA
        ("NVIDIA GB200", "2.13.0", 13000, ("2.13.0", "cu130")),
        ("NVIDIA Jetson AGX Thor", "2.15.0", 13000, ("2.15.0", "cu130")),  # sm_110 is in the aarch64 list
    ],
)
def test_aarch64_servers(gpu: str, current: str, driver: int, expected: tuple[str, str]) -> None:
    cc = capability_from_name(gpu)
    assert cc is not None
    c = recommend_wheel(
        os="Linux",
        machine="aarch64",
        python_version="3.12",
        driver_cuda=driver,
        capabilities=[cc],
        current_release=current,
    )
    assert c is not None and (c.release, c.variant) == expected


def test_a_name_cut_by_nvidia_smi_is_not_a_gpu_newer_than_the_tables() -> None:
    """nvidia-smi's table cuts long names ("GeForce RTX 208..."): pytorch#37726's paste got "the tables are older
    than this machine" as its first finding."""
    for name in ("GeForce RTX 208...", "NVIDIA GeForce RTX 3080 L…"):
        assert (
            knowledge_tables_outdated(_facts(**{"nvml.status": None, "reported.gpus": [{"index": 7, "name": name}]}))
            is None
        )
