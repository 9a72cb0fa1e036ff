"""Round 21 (issue #14): on JetPack 4 (L4T r32) the NVIDIA runtime mounts CUDA from the board into containers, and
`docker build` uses it only as Docker's default runtime; the JetPack release is also read from the nvidia-jetpack
package's version (`apt show nvidia-jetpack`, `dpkg -l`), so a CUDA 10 library missing inside a container build is
the runtime not used (docker_no_gpu_runtime), not a wrong wheel. Synthetic texts and counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text
from gpuassist.ingest.jetson_mounts import jetpack_4_shown

BUILD = (
    "Building my own container on the Jetson with docker build fails at the step that imports torch:\n"
    "OSError: libcublas.so.10: cannot open shared object file: No such file or directory\n"
    "The command '/bin/sh -c python3 -c \"import torch\"' returned a non-zero code: 1\n"
)


def _first(text: str) -> str | None:
    findings = load_text(text).findings
    return findings[0].id if findings else None


def test_apt_show_jetpack_4_reads_the_runtime_mount() -> None:
    text = BUILD + "$ apt show nvidia-jetpack\nPackage: nvidia-jetpack\nVersion: 4.5.1-b17\nArchitecture: arm64\n"
    assert _first(text) == "docker_no_gpu_runtime"


def test_dpkg_list_jetpack_4_reads_the_runtime_mount() -> None:
    text = BUILD + "ii  nvidia-jetpack  4.4-b144  arm64  NVIDIA Jetpack Meta Package\n"
    assert _first(text) == "docker_no_gpu_runtime"


def test_jetpack_5_package_is_not_r32() -> None:
    assert not jetpack_4_shown(["Package: nvidia-jetpack", "Version: 5.1.2-b104"])
    assert not jetpack_4_shown(["Package: python3-numpy", "Version: 4.6-b1"])
    assert jetpack_4_shown(["Package: nvidia-jetpack", "Maintainer: NVIDIA", "Version: 4.6-b199"])


def test_default_runtime_set_is_not_this_cause() -> None:
    text = (
        BUILD
        + "Package: nvidia-jetpack\nVersion: 4.6-b199\n"
        + '/etc/docker/daemon.json has "default-runtime": "nvidia"\n'
    )
    assert _first(text) != "docker_no_gpu_runtime"
