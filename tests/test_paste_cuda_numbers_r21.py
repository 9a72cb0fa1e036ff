"""Round 21 (issue #14): a CUDA runtime error read by its number in the forms other programs print it.

Caffe's CUDA_CHECK is glog's CHECK_EQ(error, cudaSuccess) followed by cudaGetErrorString: "Check failed: error ==
cudaSuccess (N vs. 0) <message>"; the message after it is read like torch's "CUDA error: <message>". A number that
means one CUDA error and nothing else (802, 803, 804: rows marked number_alone) is also read written before the word
("fails with 802 system error"). Synthetic texts and counter-examples."""

from __future__ import annotations

from gpuassist.ingest import load_text


def _ids(text: str) -> list[str]:
    return [f.id for f in load_text(text).findings]


def test_glog_check_eq_against_cuda_success_reads_the_message() -> None:
    text = (
        "I0102 10:00:00.000 42 net.cpp:50] Check failed: status == cudaSuccess (38 vs. 0)  "
        "no CUDA-capable device is detected\n"
    )
    assert "no_nvidia_gpu" in _ids(text)


def test_glog_check_eq_with_out_of_memory_is_oom() -> None:
    text = (
        "F0101 common.cu:12] Check failed: error == cudaSuccess (2 vs. 0)  out of memory\n"
        "*** Check failure stack trace: ***\n"
    )
    assert _ids(text)[:1] == ["cuda_out_of_memory"]


def test_glog_check_eq_of_other_values_reads_nothing() -> None:
    # a CHECK_EQ that is not about a CUDA call: no CUDA message after it
    text = "Caffe on the GPU: F0101 layer.cpp:90] Check failed: bottom.size() == 2 (3 vs. 2) wrong number of inputs\n"
    assert _ids(text) == []


def test_unique_number_before_the_word_error_reads() -> None:
    text = "On our HGX nodes CUDA init fails with 802 system error after the driver upgrade.\n"
    assert _ids(text)[:1] == ["fabric_manager_missing"]


def test_other_numbers_before_error_read_nothing() -> None:
    # 8021 is not 802; a version number 5.802 is not an error number
    text = "CUDA job on the GPU printed 8021 error lines, and the tool version 5.802 error log is attached.\n"
    assert "fabric_manager_missing" not in _ids(text)
