"""A triton submission's compile report (per target and kernel: registers, LDS, occupancy, matrix-core
instructions) and its AMDGCN listing, as the API, the download and the submission page show them."""

from __future__ import annotations

from typing import Any

from submissions.models import SubmissionEvent

LISTING = ["\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\ngemm:\n", "\tv_mfma_f32_32x32x8_bf16 a[0:15], v[0:1]\n"]
REPORT = {"case": "4096x4096x4096", "amdgcn_listing": LISTING, "targets": [
    {"target": "gfx942", "backend": "hip", "launcher_error": None, "kernels": [
        {"name": "gemm", "vgprs": 128, "agprs": 0, "sgprs": 30, "spills": 0, "lds_bytes": 32768,
         "occupancy_waves_per_simd": 4, "mfma_instructions": 48, "num_warps": 8}]},
    {"target": "sm_90", "backend": "cuda", "launcher_error": None, "kernels": [
        {"name": "gemm", "registers": 113, "spill_stores_bytes": 0, "shared_bytes": 98304, "mma_instructions": 4,
         "num_warps": 8}]}]}


def with_report(submission: Any) -> Any:
    event = submission.events.get(type="COMPILE_RESULT")
    event.payload = {**event.payload, "report": REPORT, "output": "gfx942 gemm: 128 VGPRs"}
    event.save(update_fields=["payload"])
    return submission


def test_the_api_shows_the_report_without_its_listing_and_serves_the_listing_to_its_owner(
        make_submission: Any, owner: Any, other_user: Any, api_as: Any) -> None:
    submission = with_report(make_submission(owner, "accepted"))
    detail = api_as(owner).get(f"/api/v1/submissions/{submission.pk}").json()
    assert detail["compile_report"] == {k: v for k, v in REPORT.items() if k != "amdgcn_listing"}
    listing = api_as(owner).get(f"/api/v1/submissions/{submission.pk}/amdgcn")
    assert listing.status_code == 200
    assert listing["Content-Type"].startswith("text/plain")
    assert listing.content.decode() == "".join(LISTING)
    assert api_as(other_user).get(f"/api/v1/submissions/{submission.pk}/amdgcn").status_code == 404


def test_a_submission_without_a_report_has_none_and_no_listing(make_submission: Any, owner: Any, api_as: Any) -> None:
    submission = make_submission(owner, "accepted")
    assert api_as(owner).get(f"/api/v1/submissions/{submission.pk}").json()["compile_report"] is None
    missing = api_as(owner).get(f"/api/v1/submissions/{submission.pk}/amdgcn")
    assert missing.status_code == 404
    assert SubmissionEvent.objects.filter(submission=submission, type="COMPILE_RESULT").exists()


def test_the_submission_page_shows_each_targets_resources_and_the_download(make_submission: Any, owner: Any,
                                                                         client_as: Any) -> None:
    submission = with_report(make_submission(owner, "accepted"))
    page = client_as(owner).get(f"/submissions/{submission.pk}/").content.decode()
    assert 'data-testid="compile-report"' in page
    for text in ("gfx942", "sm_90", "<td>128</td>", "<td>48</td>", "<td>32768</td>", "<td>98304</td>",
                 "Download the AMDGCN listing (gfx942)", f"/api/v1/submissions/{submission.pk}/amdgcn"):
        assert text in page, text
    plain = client_as(owner).get(f"/submissions/{make_submission(owner, 'accepted').pk}/").content.decode()
    assert 'data-testid="compile-report"' not in plain
