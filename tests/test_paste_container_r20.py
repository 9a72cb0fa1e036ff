"""Round 20 (issue #14): the docker tooling that cannot ask for the GPU, as the docker CLI and dockerd word it and as
users retype it: a client older than 19.03 ('unknown flag: --gpus', docker/cli#1714) and a daemon without the nvidia
runtime registered ('Unknown runtime specified nvidia', also typed 'unknow ...'). Synthetic texts and counter-examples
that must not read as the container cause."""

from __future__ import annotations

import pytest

from gpuassist.ingest import load_text

OLD_CLIENT = (
    "$ docker version\n"
    "Client:\n"
    " Version:      18.06.1-ce\n"
    " API version:  1.38\n"
    "$ docker run --rm --gpus=all nvcr.io/nvidia/pytorch:23.10-py3 python -c 'import torch'\n"
    "unknown flag: --gpus\n"
    "See 'docker run --help'.\n"
)
RUNTIME_NOT_REGISTERED = (
    "$ docker run --runtime=nvidia --rm myimage nvidia-smi\n"
    "docker: Error response from daemon: Unknown runtime specified nvidia.\n"
    "See 'docker run --help'.\n"
)
RUNTIME_TYPED_BY_USER = (
    "compose with runtime: nvidia does not start, I keep getting unknow runtime specified nvidia even though\n"
    "/etc/docker/daemon.json has the runtimes entry.\n"
)


@pytest.mark.parametrize("text", [OLD_CLIENT, RUNTIME_NOT_REGISTERED, RUNTIME_TYPED_BY_USER])
def test_docker_that_cannot_request_the_gpu_is_the_container_cause(text: str) -> None:
    report = load_text(text)
    assert report.findings and report.findings[0].id == "docker_no_gpu_runtime"
    assert not {"no_nvidia_driver", "nvidia_module_not_loaded", "driver_too_old"} & {f.id for f in report.findings}


def test_old_client_fix_names_the_client_upgrade() -> None:
    first = load_text(OLD_CLIENT).findings[0]
    assert "19.03" in first.fix


@pytest.mark.parametrize(
    "text",
    [
        # another runtime unknown to the daemon: not the NVIDIA plumbing
        "docker: Error response from daemon: Unknown runtime specified runsc.\n",
        # another unknown flag of docker run
        "$ docker run --gpu all img\nunknown flag: --gpu\nSee 'docker run --help'.\n",
        # --gpus working: the flag named in prose, no error
        "docker run --gpus all nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi works fine and shows my RTX 4090.\n",
    ],
)
def test_other_flags_and_runtimes_claim_no_container_cause(text: str) -> None:
    assert "docker_no_gpu_runtime" not in {f.id for f in load_text(text).findings}


@pytest.mark.parametrize(
    "text",
    [
        "ERROR: The Compose file './docker-compose.yml' is invalid because:\n"
        "Unsupported config option for services.trainer: 'runtime'\n",
        "ERROR: The Compose file './docker-compose.yml' is invalid because:\n"
        "services.app.deploy.resources.reservations value Additional properties are not allowed "
        "('devices' was unexpected)\n",
    ],
)
def test_compose_that_cannot_express_the_gpu_request_is_the_container_cause(text: str) -> None:
    ids = [f.id for f in load_text(text).findings]
    assert ids and ids[0] == "docker_no_gpu_runtime"


def test_other_compose_schema_errors_claim_no_container_cause() -> None:
    text = (
        "I run a CUDA training container with docker-compose:\n"
        "ERROR: The Compose file './docker-compose.yml' is invalid because:\n"
        "Unsupported config option for services.trainer: 'shm_size'\n"
    )
    assert "docker_no_gpu_runtime" not in {f.id for f in load_text(text).findings}
