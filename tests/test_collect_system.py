"""host.*: kernel, distro, CPU and RAM from recorded /proc and /etc, and the non-Linux paths."""

from __future__ import annotations

import platform

import pytest

import hostdata
from gpuassist.collect import system
from gpuassist.facts import NotCollected


@pytest.mark.parametrize(
    ("host", "kernel", "distro", "cpu", "count", "ram"),
    [
        (
            "workstation-rtx4090",
            "6.5.0-26-generic",
            "Ubuntu 22.04.4 LTS",
            "AMD Ryzen 9 7950X 16-Core Processor",
            32,
            65536000 * 1024,
        ),
        (
            "nouveau-no-driver",
            "6.7.5-200.fc39.x86_64",
            "Fedora Linux 39 (Workstation Edition)",
            "Intel(R) Core(TM) i7-12700K",
            20,
            32768000 * 1024,
        ),
        (
            "wsl2",
            "5.15.146.1-microsoft-standard-WSL2",
            "Ubuntu 22.04.3 LTS",
            "11th Gen Intel(R) Core(TM) i9-11980HK @ 2.60GHz",
            16,
            16303412 * 1024,
        ),
    ],
)
def test_linux_host_facts_from_files(host: str, kernel: str, distro: str, cpu: str, count: int, ram: int) -> None:
    run = hostdata.runner(host)
    facts = hostdata.run(system.collect, hostdata.ctx(host, run=run))
    assert facts == {
        "host.os": "Linux",
        "host.kernel": kernel,
        "host.distro": distro,
        "host.machine": "x86_64",
        "host.cpu_model": cpu,
        "host.cpu_count": count,
        "host.ram_bytes": ram,
    }
    assert run.calls == []  # Linux host facts never cost a process


def test_missing_proc_files_fall_back_to_uname_then_not_collected() -> None:
    ctx = hostdata.dict_ctx(
        {"/etc/os-release": 'NAME="Arch Linux"\n'},
        commands={
            "uname -r": {"stdout": "6.8.1-arch1-1\n"},
            "uname -m": {"status": "timeout"},
        },
    )
    facts = hostdata.run(system.collect, ctx)
    assert facts["host.kernel"] == "6.8.1-arch1-1"
    assert facts["host.machine"] == NotCollected("uname -m: timeout")
    assert facts["host.distro"] == "Arch Linux"
    assert isinstance(facts["host.cpu_model"], NotCollected)
    assert isinstance(facts["host.cpu_count"], NotCollected)
    assert isinstance(facts["host.ram_bytes"], NotCollected)


def test_unreadable_cpuinfo_is_not_collected_with_the_path() -> None:
    ctx = hostdata.dict_ctx({"/proc/cpuinfo": {"readable": False}, "/proc/meminfo": "MemTotal: 1024 kB\n"})
    facts = hostdata.run(system.collect, ctx)
    assert facts["host.cpu_model"] == NotCollected("cannot read /proc/cpuinfo")
    assert facts["host.ram_bytes"] == 1024 * 1024


def test_arm_cpuinfo_names_the_board() -> None:
    text = "processor\t: 0\nBogoMIPS\t: 62.50\n\nprocessor\t: 1\n\nModel\t: Raspberry Pi 5 Model B Rev 1.0\n"
    assert system.parse_cpuinfo(text) == ("Raspberry Pi 5 Model B Rev 1.0", 2)


def test_os_release_without_pretty_name_and_with_quotes() -> None:
    assert system.os_release_name("NAME='Alpine Linux'\nVERSION=\"3.19\"\n") == "Alpine Linux 3.19"
    assert system.os_release_name("# comment only\n") is None
    assert system.os_release_name(None) is None


def test_darwin_uses_one_sysctl_call() -> None:
    out = (
        "kern.osrelease: 23.4.0\nkern.osproductversion: 14.4\nhw.machine: arm64\n"
        "machdep.cpu.brand_string: Apple M2 Pro\nhw.logicalcpu: 12\nhw.memsize: 34359738368\n"
    )
    ctx = hostdata.dict_ctx({}, commands={" ".join(system._DARWIN_SYSCTL): {"stdout": out}}, os_name="Darwin")
    facts = hostdata.run(system.collect, ctx)
    assert facts == {
        "host.os": "Darwin",
        "host.kernel": "23.4.0",
        "host.distro": "macOS 14.4",
        "host.machine": "arm64",
        "host.cpu_model": "Apple M2 Pro",
        "host.cpu_count": 12,
        "host.ram_bytes": 34359738368,
    }


def test_darwin_without_sysctl_is_not_collected() -> None:
    facts = hostdata.run(system.collect, hostdata.dict_ctx({}, os_name="Darwin"))
    assert facts["host.os"] == "Darwin"
    assert facts["host.kernel"] == NotCollected("sysctl: not_found")


@pytest.mark.skipif(platform.system() == "Windows", reason="simulates Windows from another OS")
def test_simulated_windows_does_not_report_this_machine() -> None:
    facts = hostdata.run(system.collect, hostdata.dict_ctx({}, os_name="Windows"))
    assert facts["host.os"] == "Windows"
    assert all(isinstance(facts[k], NotCollected) for k in system.KEYS[1:])
