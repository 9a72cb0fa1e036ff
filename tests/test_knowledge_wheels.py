"""Version tables and wheel logic against the cases documented in root_causes.md."""

from __future__ import annotations

import pytest

from gpuassist.knowledge.wheels import (
    arch_covers,
    arch_list_from_spec,
    capability_from_name,
    cuda_int_to_str,
    cuda_str_to_int,
    driver_max_cuda,
    driver_supports_variant,
    min_driver_for_variant,
    parse_torch_version,
    recommend_cpu_wheel,
    recommend_rocm_wheel,
    recommend_wheel,
    release_variants,
    releases,
    wheel_arch_list,
)

LINUX = {"os": "Linux", "machine": "x86_64", "python_version": "3.11.7"}


# ---------------------------------------------------------------- versions


@pytest.mark.parametrize(
    ("raw", "release", "local", "variant", "kind", "dev"),
    [
        ("2.5.1+cu124", "2.5.1", "cu124", "cu124", "cuda", False),
        ("2.6.0.dev20241112+cu126", "2.6.0", "cu126", "cu126", "cuda", True),
        ("1.12.0a0+2c916ef.nv22.3", "1.12.0", "2c916ef.nv22.3", None, "jetson", True),
        ("2.1.0a0+git5f3e2c1", "2.1.0", "git5f3e2c1", None, "source", True),
        ("2.13.0+cpu", "2.13.0", "cpu", "cpu", "cpu", False),
        ("2.1.0+cpu.cxx11.abi", "2.1.0", "cpu.cxx11.abi", "cpu", "cpu", False),
        ("2.6.0+rocm6.2.4", "2.6.0", "rocm6.2.4", "rocm6.2.4", "rocm", False),
        ("2.5.1", "2.5.1", None, None, "unknown", False),
    ],
)
def test_parse_torch_version(
    raw: str, release: str, local: str | None, variant: str | None, kind: str, dev: bool
) -> None:
    b = parse_torch_version(raw)
    assert (b.release, b.local, b.variant, b.kind, b.dev) == (release, local, variant, kind, dev)


def test_parse_torch_version_cuda_and_garbage() -> None:
    assert parse_torch_version("2.5.1+cu124").cuda == 12040
    assert parse_torch_version("2.13.0+cpu").cuda is None
    assert parse_torch_version("not a version").kind == "unknown"


@pytest.mark.parametrize(("value", "text"), [(12040, "12.4"), (11080, "11.8"), (9010, "9.1"), (13000, "13.0")])
def test_cuda_int_str_round_trip(value: int, text: str) -> None:
    assert cuda_int_to_str(value) == text
    assert cuda_str_to_int(text) == value


def test_cuda_str_to_int_forms() -> None:
    assert cuda_str_to_int("12.4.1") == 12040
    assert cuda_str_to_int("cu130") == 13000
    with pytest.raises(ValueError):
        cuda_str_to_int("twelve")


# ---------------------------------------------------------------- drivers (Table 3)


@pytest.mark.parametrize(
    ("driver", "os", "cuda"),
    [
        ("550.54.14", "Linux", 12040),  # exactly the 12.4 GA minimum
        ("550.54.13", "Linux", 12030),
        ("560.76", "Windows", 12060),  # 12.6 GA Windows minimum
        ("32.0.15.6076", "Windows", 12060),  # the same driver as WMI reports it
        ("470.82.01", "Linux", 11040),  # R470: found 11040 in pytorch#112553
        ("535.104.05", "Linux", 12020),  # R535: found 12020 in rapidsai/cugraph-gnn#410
        ("570.86.16", "Linux", 12080),  # R570: found 12080 in pytorch#162531
        ("580.65.06", "Linux", 13000),
        ("580.88", "Windows", 13000),  # Table 3 N/A on Windows for 13.x: R580 family floor
        ("410.48", "Linux", 10000),
        ("384.81", "Linux", 9000),
        ("550.54.14", "WSL2", 12030),  # in WSL2 the Windows column applies (551.61 for 12.4)
    ],
)
def test_driver_max_cuda(driver: str, os: str, cuda: int) -> None:
    assert driver_max_cuda(driver, os) == cuda


def test_driver_max_cuda_unknowns() -> None:
    assert driver_max_cuda("550.54.14", "Darwin") is None
    assert driver_max_cuda("300.1", "Linux") is None
    assert driver_max_cuda("", "Linux") is None


@pytest.mark.parametrize(
    ("variant", "linux", "windows"),
    [
        ("cu118", "520.61.05", "520.06"),
        ("cu121", "530.30.02", "531.14"),
        ("cu124", "550.54.14", "551.61"),
        ("cu126", "560.28.03", "560.76"),
        ("12.6", "560.28.03", "560.76"),
        ("cu128", "570.26", "570.65"),
        ("cu129", "575.51.03", "576.02"),
        ("cu130", "580.65.06", "580.88"),  # Windows: PyTorch 2.12 notice
        ("cu102", "440.33", "441.22"),
        ("cu101", "418.39", "418.96"),
        ("cu100", "410.48", "411.31"),
        ("cu92", "396.26", "397.44"),
        ("cu90", "384.81", "385.54"),
    ],
)
def test_min_driver_for_variant(variant: str, linux: str, windows: str) -> None:
    assert min_driver_for_variant(variant, "Linux") == linux
    assert min_driver_for_variant(variant, "Windows") == windows


def test_min_driver_for_non_cuda() -> None:
    assert min_driver_for_variant("cpu", "Linux") is None
    assert min_driver_for_variant("cu126", "Darwin") is None


def test_mvc_cannot_cross_majors() -> None:
    r470 = driver_supports_variant(11040, "cu121")  # pytorch#112553
    assert not r470.ok and r470.via is None and "cannot cross" in r470.reason
    r570 = driver_supports_variant(12080, "cu130")  # pytorch#162531
    assert not r570.ok


def test_same_major_older_driver_is_ok_but_flagged() -> None:
    c = driver_supports_variant(12020, "cu126")
    assert c.ok and c.via == "minor_version_compat" and "minor version compatibility" in c.reason


def test_native_and_pre_11() -> None:
    assert driver_supports_variant(12040, "cu124").via == "native"
    assert driver_supports_variant(13000, "12.6").via == "native"
    assert not driver_supports_variant(10010, "cu102").ok  # no MVC before CUDA 11
    assert driver_supports_variant(10020, "cu101").ok
    assert driver_supports_variant(11040, "cpu").ok
    with pytest.raises(ValueError):
        driver_supports_variant(12040, "banana")


# ---------------------------------------------------------------- architectures


def test_arch_list_from_spec() -> None:
    assert arch_list_from_spec("7.5;8.0;12.0+PTX") == ("sm_75", "sm_80", "sm_120", "compute_120")


def test_rtx_5090_not_covered_by_26_cu124_but_by_cu128() -> None:
    arch_26_cu124 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]  # malfet, pytorch#144071
    assert wheel_arch_list("2.6", "cu124", "linux_x86_64") == tuple(arch_26_cu124)
    assert not arch_covers("12.0", arch_26_cu124)
    cu128 = wheel_arch_list("2.7", "cu128", "linux_x86_64")
    assert cu128 is not None and arch_covers("12.0", cu128)


def test_rtx_4090_runs_sm86_sass() -> None:
    assert arch_covers("8.9", ["sm_80", "sm_86"])
    assert arch_covers("8.9", ["sm_80", "sm_90"])  # sm_80 SASS runs on 8.9 too
    assert not arch_covers("8.9", ["sm_75", "sm_90"])  # 7.x and 9.x are other majors


def test_ptx_and_arch_specific() -> None:
    assert arch_covers("12.0", ["sm_90", "compute_90"])  # JIT from PTX
    assert not arch_covers("12.0", ["sm_90", "compute_90"], ptx=False)
    assert not arch_covers("8.6", ["compute_90"])  # PTX only runs on >= its arch
    assert arch_covers("9.0", ["sm_90a"]) and not arch_covers("9.1", ["sm_90a"])


def test_p100_dropped_from_cu128_kept_in_cu126() -> None:
    cu128 = wheel_arch_list("2.8", "cu128", "linux_x86_64")
    cu126 = wheel_arch_list("2.8", "cu126", "linux_x86_64")
    assert cu128 is not None and cu126 is not None
    assert not arch_covers("6.0", cu128)
    assert arch_covers("6.0", cu126)


def test_k80_only_in_cu118() -> None:
    covering = {
        v
        for r in releases()
        for v in release_variants(r)
        if (arch := wheel_arch_list(r, v, "linux_x86_64")) and arch_covers("3.7", arch, ptx=False)
    }
    assert covering == {"cu118"}


def test_volta_and_cu130() -> None:
    assert arch_covers("7.0", wheel_arch_list("2.9", "cu128", "linux_x86_64") or ())
    assert not arch_covers("7.0", wheel_arch_list("2.11", "cu128", "linux_x86_64") or ())  # RFC #172352
    assert not arch_covers("7.0", wheel_arch_list("2.10", "cu130", "linux_x86_64") or ())


def test_release_matrix() -> None:
    assert releases()[0] == "2.0" and releases()[-1] == "2.15"
    assert release_variants("2.5.1") == ("cu118", "cu121", "cu124")
    assert release_variants("2.11") == ("cu126", "cu128", "cu130")
    assert wheel_arch_list("2.5", "cu128", "linux_x86_64") is None  # no such wheel


@pytest.mark.parametrize(
    ("name", "cc"),
    [
        ("NVIDIA GeForce RTX 5090", "12.0"),
        ("NVIDIA GeForce RTX 4090", "8.9"),
        ("NVIDIA L4", "8.9"),
        ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("NVIDIA A10G", "8.6"),
        ("Tesla T4", "7.5"),
        ("Tesla V100-SXM2-16GB", "7.0"),
        ("Tesla P100-PCIE-16GB", "6.0"),
        ("NVIDIA GeForce GTX 1080 Ti", "6.1"),
        ("Tesla K80", "3.7"),
        ("NVIDIA H100 80GB HBM3", "9.0"),
        ("NVIDIA B200", "10.0"),
        ("NVIDIA GB200", "10.0"),
    ],
)
def test_capability_from_name(name: str, cc: str) -> None:
    assert capability_from_name(name) == cc


def test_capability_from_unknown_name() -> None:
    assert capability_from_name("Some Future GPU") is None


# ---------------------------------------------------------------- recommendations


def test_driver_550_rtx_4090_keeps_251_with_cu124() -> None:
    c = recommend_wheel(
        **LINUX,
        driver_cuda=driver_max_cuda("550.54.14", "Linux"),
        capabilities=["8.9"],
        current_release="2.5.1",
    )
    assert c is not None and c.ok
    assert (c.release, c.variant, c.via, c.keeps_current) == ("2.5.1", "cu124", "native", True)
    assert c.index_url == "https://download.pytorch.org/whl/cu124"
    assert c.pip_command("/path/to/python") == (
        '/path/to/python -m pip install --force-reinstall "torch==2.5.1" '
        "--index-url https://download.pytorch.org/whl/cu124"
    )


def test_driver_570_rtx_5090_gets_cu128_from_27_on() -> None:
    c = recommend_wheel(**LINUX, driver_cuda=12080, capabilities=["12.0"], current_release="2.5.1")
    assert c is not None and c.variant == "cu128" and c.via == "native"
    assert c.release is not None and tuple(int(x) for x in c.release.split(".")[:2]) >= (2, 7)
    assert c.requirement == f"torch=={c.release}.*"
    # cu130 would need R580: never chosen for a 12.8 driver (pytorch#162531). The nearest release with a
    # cu128 build is 2.7; any 12.x driver runs it (MVC floor), 570.26 gives all of CUDA 12.8.
    assert c.release == "2.7"
    assert (c.min_driver, c.full_driver) == ("525.60.13", "570.26")


def test_driver_12020_with_torch_210() -> None:
    """torch 2.10 has no wheel for CUDA <= 12.2 (its oldest is cu126), but a cu126 wheel runs on R535
    through minor-version compatibility (NVIDIA MVC Table 1: 12.x on >= 525.60.13), so the user's release
    is kept with the variant closest above the driver."""
    c = recommend_wheel(**LINUX, driver_cuda=12020, capabilities=["8.9"], current_release="2.10.0")
    assert c is not None
    assert (c.release, c.variant, c.via, c.keeps_current) == ("2.10.0", "cu126", "minor_version_compat", True)
    assert (c.min_driver, c.full_driver) == ("525.60.13", "560.28.03")


def test_kepler_gets_cu118_via_mvc_on_r470() -> None:
    c = recommend_wheel(**LINUX, driver_cuda=11040, capabilities=["3.7"], current_release="2.8.0")
    assert c is not None and c.variant == "cu118" and c.via == "minor_version_compat"
    assert c.release == "2.7"  # nearest release carrying sm_37
    assert (c.min_driver, c.full_driver) == ("450.80.02", "520.61.05")


def test_pascal_gets_cu126() -> None:
    c = recommend_wheel(**LINUX, driver_cuda=13000, capabilities=["6.0"], current_release="2.8.0")
    assert c is not None and (c.release, c.variant) == ("2.8.0", "cu126")


def test_mixed_gpus_need_a_variant_covering_all() -> None:
    c = recommend_wheel(**LINUX, driver_cuda=13000, capabilities=["6.1", "12.0"], current_release=None)
    assert c is not None and not c.ok  # cu126 lacks sm_120, cu128+ lack sm_61
    assert "sm_61" in c.reason


def test_driver_too_old_for_every_fitting_variant() -> None:
    c = recommend_wheel(**LINUX, driver_cuda=11040, capabilities=["12.0"], current_release=None)
    assert c is not None and not c.ok and c.variant is None
    assert c.min_driver == "525.60.13"  # the 12.x family floor runs cu128 (sm_120)
    with pytest.raises(ValueError):
        c.pip_command("python")


def test_unknown_driver_gets_newest_fit_with_its_minimum() -> None:
    c = recommend_wheel(**LINUX, driver_cuda=None, capabilities=["8.9"], current_release=None)
    assert c is not None and c.ok and c.min_driver is not None


def test_windows_uses_windows_lists_and_quotes_paths() -> None:
    c = recommend_wheel(
        os="Windows",
        machine="AMD64",
        python_version="3.12",
        driver_cuda=12060,
        capabilities=["8.6"],
        current_release="2.6.0",
    )
    assert c is not None and (c.release, c.variant) == ("2.6.0", "cu126")
    assert c.pip_command(r"C:\Program Files\Python312\python.exe").startswith(
        r'"C:\Program Files\Python312\python.exe" -m pip install'
    )


def test_posix_path_with_space_is_quoted() -> None:
    c = recommend_wheel(**LINUX, driver_cuda=12060, capabilities=["8.6"], current_release="2.6.0")
    assert c is not None and c.pip_command("/home/a b/python").startswith("'/home/a b/python' -m pip")


def test_macos_has_no_cuda_wheel() -> None:
    assert (
        recommend_wheel(
            os="Darwin",
            machine="arm64",
            python_version="3.12",
            driver_cuda=None,
            capabilities=[],
            current_release="2.5.1",
        )
        is None
    )


def test_jetson_needs_nvidia_wheel() -> None:
    c = recommend_wheel(
        os="Linux",
        machine="aarch64",
        python_version="3.10",
        driver_cuda=12060,
        capabilities=["8.7"],
        current_release=None,
    )
    assert c is not None and not c.ok and "JetPack" in c.reason


def test_aarch64_server_uses_aarch64_lists() -> None:
    c = recommend_wheel(
        os="Linux",
        machine="aarch64",
        python_version="3.12",
        driver_cuda=12080,
        capabilities=["9.0"],
        current_release="2.8.0",
    )
    assert c is not None and c.ok and c.variant in {"cu126", "cu128"}
    assert wheel_arch_list("2.7", "cu118", "linux_aarch64") is None


def test_python_version_filters_releases() -> None:
    # 2.1 had no cp312 wheels (nerfstudio#3730): keeping 2.1.2 is impossible. The nearest release with a
    # cp312 wheel and a build <= CUDA 12.4 is 2.2 + cu121 (the smallest change to the user's code).
    c = recommend_wheel(
        os="Linux",
        machine="x86_64",
        python_version="3.12",
        driver_cuda=12040,
        capabilities=["8.9"],
        current_release="2.1.2",
    )
    assert c is not None and (c.release, c.variant, c.keeps_current) == ("2.2", "cu121", False)
    same = recommend_wheel(
        os="Linux",
        machine="x86_64",
        python_version="3.11",
        driver_cuda=12040,
        capabilities=["8.9"],
        current_release="2.1.2",
    )
    assert same is not None and (same.release, same.variant) == ("2.1.2", "cu121")


def test_cpu_and_rocm_wheels() -> None:
    cpu = recommend_cpu_wheel(os="Linux", machine="x86_64", python_version="3.12", current_release="2.13.0")
    assert cpu.index_url == "https://download.pytorch.org/whl/cpu" and cpu.requirement == "torch==2.13.0"
    mac = recommend_cpu_wheel(os="Darwin", machine="arm64", python_version="3.12", current_release=None)
    assert mac.index_url is None and mac.pip_command("python3") == 'python3 -m pip install --force-reinstall "torch"'
    intel_mac = recommend_cpu_wheel(os="Darwin", machine="x86_64", python_version="3.11", current_release=None)
    assert intel_mac.requirement == "torch==2.2.*"
    rocm = recommend_rocm_wheel(os="Linux", machine="x86_64", python_version="3.12", current_release="2.5.1")
    assert (rocm.variant, rocm.requirement) == ("rocm6.2", "torch==2.5.1")
    assert not recommend_rocm_wheel(os="Windows", machine="AMD64", python_version="3.12", current_release=None).ok
