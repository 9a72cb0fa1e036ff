"""platform.*: WSL, containers, Jetson and Rosetta."""

from __future__ import annotations

import pytest

import hostdata
from gpuassist.collect import platform
from gpuassist.facts import NotCollected


@pytest.mark.parametrize(
    ("host", "wsl", "container"),
    [
        ("wsl2", "wsl2", None),
        ("docker-no-gpu-runtime", None, "docker"),
        ("workstation-rtx4090", None, None),
        ("vm-no-gpu", None, None),
    ],
)
def test_recorded_hosts(host: str, wsl: str | None, container: str | None) -> None:
    facts = hostdata.run(platform.collect, hostdata.ctx(host))
    assert facts["platform.wsl"] == wsl
    assert facts["platform.container"] == container
    assert facts["platform.jetson"] is None
    assert facts["platform.rosetta"] is None


def test_wsl2_libcuda_files() -> None:
    facts = hostdata.run(platform.collect, hostdata.ctx("wsl2"))
    assert facts["platform.wsl_libcuda"] == [
        "/usr/lib/wsl/lib/libcuda.so",
        "/usr/lib/wsl/lib/libcuda.so.1",
        "/usr/lib/wsl/lib/libcuda.so.1.1",
    ]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"/proc/sys/kernel/osrelease": "4.4.0-19041-Microsoft\n"}, "wsl1"),
        ({"/proc/sys/kernel/osrelease": "4.19.128-microsoft-standard\n"}, "wsl2"),  # early WSL2 kernels
        (
            {
                "/proc/sys/kernel/osrelease": "6.6.0-custom\n",
                "/proc/version": "Linux version 6.6.0-custom (x@y) #1 SMP Microsoft WSL2\n",
                "/dev/dxg": "",
            },
            "wsl2",
        ),
        ({"/proc/sys/kernel/osrelease": "6.5.0-26-generic\n"}, None),
    ],
)
def test_wsl_kind(files: dict[str, object], expected: str | None) -> None:
    assert hostdata.run(platform.collect, hostdata.dict_ctx(files))["platform.wsl"] == expected


@pytest.mark.parametrize(
    ("files", "environ", "expected"),
    [
        ({"/run/.containerenv": ""}, {}, "podman"),
        ({"/.dockerenv": ""}, {"KUBERNETES_SERVICE_HOST": "10.96.0.1"}, "kubernetes"),
        ({"/proc/1/cgroup": "12:pids:/docker/3f2a1b0c9d8e\n0::/\n"}, {}, "docker"),
        ({"/proc/1/cgroup": "11:memory:/kubepods/burstable/pod1234/abcd\n"}, {}, "kubernetes"),
        ({"/proc/1/cgroup": "0::/system.slice/containerd.service\n"}, {}, "containerd"),
        ({"/proc/1/cgroup": "0::/init.scope\n", "/run/systemd/container": "lxc\n"}, {}, "lxc"),
        (
            {"/proc/1/cgroup": "0::/init.scope\n", "/run/systemd/container": "systemd-nspawn\n"},
            {},
            "systemd-nspawn",
        ),
        ({"/proc/1/cgroup": "0::/init.scope\n"}, {}, None),
    ],
)
def test_container_kind(files: dict[str, object], environ: dict[str, str], expected: str | None) -> None:
    facts = hostdata.run(platform.collect, hostdata.dict_ctx(files, environ=environ))
    assert facts["platform.container"] == expected


def test_jetson_release_line() -> None:
    line = "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64, DATE: 2023"
    facts = hostdata.run(
        platform.collect, hostdata.dict_ctx({"/etc/nv_tegra_release": line + "\nKERNEL_VARIANT=oot\n"})
    )
    assert facts["platform.jetson"] == line


@pytest.mark.parametrize(
    ("recording", "expected"),
    [
        ({"stdout": "1\n"}, True),
        ({"stdout": "0\n"}, False),
        ({"returncode": 1, "stderr": "sysctl: unknown oid 'sysctl.proc_translated'"}, False),  # Intel Mac
        ({"status": "timeout"}, NotCollected("sysctl: timeout")),
    ],
)
def test_rosetta(recording: dict[str, object], expected: object) -> None:
    ctx = hostdata.dict_ctx({}, commands={"sysctl -n sysctl.proc_translated": recording}, os_name="Darwin")
    facts = hostdata.run(platform.collect, ctx)
    assert facts["platform.rosetta"] == expected
    assert facts["platform.container"] == NotCollected("not applicable on Darwin")
    assert facts["platform.wsl"] is None


def test_rosetta_is_only_asked_on_macos() -> None:
    ctx = hostdata.dict_ctx({}, commands={"sysctl -n sysctl.proc_translated": {"stdout": "1\n"}})
    assert hostdata.run(platform.collect, ctx)["platform.rosetta"] is None
    assert ctx.run.calls == []  # type: ignore[attr-defined]
