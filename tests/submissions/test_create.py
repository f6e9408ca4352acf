"""Submitting through the API: validation errors are clear 4xx, quotas give 429 with the reason and
store nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from submissions.models import Status, Submission
from tests.conftest import read_source
from tests.support.clock import stepped_clock

pytestmark = pytest.mark.usefixtures("problems_loaded", "local_pool")
URL = "/api/v1/submissions"


def body(**overrides: Any) -> dict[str, Any]:
    return {"problem": "vector-add", "language": "cpp", "source": read_source("cpp.cpp"), **overrides}


def test_it_queues_a_valid_submission_with_its_problem_version(owner: Any, api_as: Any) -> None:
    response = api_as(owner).post(URL, body(), format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["status"] == "IN_QUEUE"
    assert data["queue_position"] == 1
    assert data["pool"] == "local"
    assert data["mode"] == "benchmark"
    submission = Submission.objects.get(pk=data["id"])
    assert submission.problem_version == submission.problem.current_version
    assert data["problem_version"] == submission.problem_version.content_hash
    assert list(submission.events.values_list("type", flat=True)) == ["STATUS"]


@pytest.mark.parametrize(("overrides", "field", "words"), [
    ({"problem": "no-such-problem"}, "problem", "no problem 'no-such-problem'"),
    ({"language": "fortran"}, "language", "not one of cpp, hip, cuda"),
    ({"language": "hip"}, "mode", "pool 'local' has no GPU for hip; it checks hip kernels on the emulated device"),
    ({"mode": "profile"}, "mode", "not one of"),
    ({"pool": "nowhere"}, "pool", "no pool 'nowhere'"),
    ({"source": "   \n"}, "source", "is empty"),
    ({"source": "x" * (64 * 1024 + 1)}, "source", "the limit is 65536 bytes"),
    ({"source": "int main() {}\x00"}, "source", "ull"),
])
def test_it_rejects_bad_input_with_a_clear_message(owner: Any, api_as: Any, overrides: dict, field: str,
                                                    words: str) -> None:
    response = api_as(owner).post(URL, body(**overrides), format="json")
    assert response.status_code == 400
    error = response.json()
    assert set(error) == {"message", "extra"}
    assert words in error["message"]
    assert error["message"].startswith(field)
    assert not Submission.objects.exists()


def test_a_pool_compile_checks_a_language_it_cannot_run_only_in_compile_mode(owner: Any, api_as: Any,
                                                                             local_pool: Any) -> None:
    local_pool.config = {"compile_only_languages": ["hip"], "emulated_languages": []}
    local_pool.save()
    client = api_as(owner)
    refused = client.post(URL, body(language="hip", mode="benchmark"), format="json")
    assert refused.status_code == 400
    assert refused.json()["message"].startswith("language: pool 'local' can only compile-check hip (mode compile)")
    assert client.post(URL, body(language="cuda", mode="compile"), format="json").status_code == 400
    accepted = client.post(URL, body(language="hip", mode="compile"), format="json")
    assert accepted.status_code == 201, accepted.json()
    pools = client.get("/api/v1/pools").json()
    assert pools[0]["compile_only_languages"] == ["hip"]


def test_it_counts_utf8_bytes_not_characters(owner: Any, api_as: Any) -> None:
    source = "// " + "é" * 32767 + "\n"  # 65538 bytes, 32771 characters
    response = api_as(owner).post(URL, body(source=source), format="json")
    assert response.status_code == 400
    assert "bytes" in response.json()["message"]


def test_it_accepts_exactly_64_kib(owner: Any, api_as: Any) -> None:
    source = read_source("cpp.cpp")
    source += "/" * (64 * 1024 - len(source.encode()))
    assert api_as(owner).post(URL, body(source=source), format="json").status_code == 201


@pytest.mark.parametrize("raw", [b'{"problem": "vector-add", ', b"[1, 2", b"\xff\xfe"])
def test_it_answers_malformed_json_with_400_not_500(owner: Any, api_as: Any, raw: bytes) -> None:
    response = api_as(owner).generic("POST", URL, raw, content_type="application/json")
    assert response.status_code == 400
    assert "message" in response.json()


def test_it_requires_source_or_a_file(owner: Any, api_as: Any) -> None:
    response = api_as(owner).post(URL, {"problem": "vector-add", "language": "cpp"}, format="json")
    assert response.status_code == 400
    assert response.json()["message"].startswith("source")


def test_it_takes_an_uploaded_file(owner: Any, api_as: Any) -> None:
    upload = SimpleUploadedFile("kernel.cpp", read_source("cpp.cpp").encode(), content_type="text/x-c")
    response = api_as(owner).post(URL, {"problem": "vector-add", "language": "cpp", "source_file": upload},
                                  format="multipart")
    assert response.status_code == 201, response.json()
    assert Submission.objects.get().source == read_source("cpp.cpp")


def test_it_refuses_an_upload_over_the_size_limit_without_reading_it_all(owner: Any, api_as: Any) -> None:
    upload = SimpleUploadedFile("kernel.cpp", b"/" * (10 * 64 * 1024))
    response = api_as(owner).post(URL, {"problem": "vector-add", "language": "cpp", "source_file": upload},
                                  format="multipart")
    assert response.status_code == 400
    assert response.json() == {"message": "source: the file is larger than the limit of 65536 bytes.",
                               "extra": {"field": "source", "limit_bytes": 65536}}


def test_it_rejects_an_upload_that_is_not_utf8(owner: Any, api_as: Any) -> None:
    upload = SimpleUploadedFile("kernel.cpp", b"int x = 1; // \xff\xfe\n")
    response = api_as(owner).post(URL, {"problem": "vector-add", "language": "cpp", "source_file": upload},
                                  format="multipart")
    assert response.status_code == 400
    assert "UTF-8" in response.json()["message"]


def test_it_rejects_over_the_concurrent_limit_with_429_and_a_reason(owner: Any, api_as: Any) -> None:
    client = api_as(owner)
    assert [client.post(URL, body(), format="json").status_code for _ in range(2)] == [201, 201]
    response = client.post(URL, body(), format="json")
    assert response.status_code == 429
    error = response.json()
    assert "2 submission(s) queued or running" in error["message"]
    assert error["extra"] == {"status": "REJECTED", "limit": "concurrent_submissions", "cap": 2}
    assert Submission.objects.count() == 2
    assert not Submission.objects.filter(status=Status.REJECTED).exists()


def test_it_rejects_over_the_daily_limit(owner: Any, api_as: Any, settings: Any) -> None:
    settings.HIPJUDGE_QUOTA_DAILY = 3
    settings.HIPJUDGE_QUOTA_CONCURRENT = 100
    client = api_as(owner)
    assert [client.post(URL, body(), format="json").status_code for _ in range(4)] == [201, 201, 201, 429]
    # Refusals are not stored, so they cannot eat into the quota either.
    refused = client.post(URL, body(), format="json").json()
    assert refused["message"].startswith("You reached the limit of 3")
    assert refused["extra"]["limit"] == "daily_submissions"
    assert Submission.objects.count() == 3


def test_quotas_are_per_user(owner: Any, other_user: Any, api_as: Any) -> None:
    for _ in range(2):
        api_as(owner).post(URL, body(), format="json")
    assert api_as(other_user).post(URL, body(), format="json").status_code == 201


def test_a_finished_submission_frees_a_concurrent_slot(owner: Any, api_as: Any) -> None:
    client = api_as(owner)
    first = client.post(URL, body(), format="json").json()
    client.post(URL, body(), format="json")
    client.post(f"{URL}/{first['id']}/cancel")
    assert client.post(URL, body(), format="json").status_code == 201


def test_it_refuses_anonymous_submissions(api_as: Any) -> None:
    response = api_as(None).post(URL, body(), format="json")
    assert response.status_code == 401
    assert set(response.json()) == {"message", "extra"}


def test_a_pool_disabled_in_this_process_is_refused_at_once(owner: Any, api_as: Any, local_pool: Any,
                                                            settings: Any) -> None:
    settings.HIPJUDGE_LOOKUP_CACHE_TTL = 3600  # the pool row is cached by the first POST
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10
    client = api_as(owner)
    assert client.post(URL, body(), format="json").status_code == 201
    local_pool.enabled = False
    local_pool.save()  # post_save empties this process's cache
    refused = client.post(URL, body(), format="json")
    assert refused.status_code == 400
    assert refused.json()["message"] == "pool: there is no pool 'local' taking submissions."


def test_an_edit_made_elsewhere_reaches_the_post_once_the_ttl_lapsed(owner: Any, api_as: Any, local_pool: Any,
                                                                     settings: Any) -> None:
    settings.HIPJUDGE_LOOKUP_CACHE_TTL = 0.3
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10
    client = api_as(owner)
    with stepped_clock() as clock:
        assert client.post(URL, body(), format="json").status_code == 201
        # Another process's edit: a plain UPDATE, no signal reaches this process.
        type(local_pool).objects.filter(pk=local_pool.pk).update(enabled=False)
        clock.advance(0.2)
        assert client.post(URL, body(), format="json").status_code == 201  # the cached pool, for the TTL
        clock.advance(0.2)
        assert client.post(URL, body(), format="json").status_code == 400


def test_without_a_cache_an_edit_made_elsewhere_reaches_the_next_post(owner: Any, api_as: Any, local_pool: Any,
                                                                      settings: Any) -> None:
    settings.HIPJUDGE_LOOKUP_CACHE_TTL = 0
    settings.HIPJUDGE_QUOTA_CONCURRENT = 10
    client = api_as(owner)
    with stepped_clock():
        assert client.post(URL, body(), format="json").status_code == 201
        type(local_pool).objects.filter(pk=local_pool.pk).update(enabled=False)
        assert client.post(URL, body(), format="json").status_code == 400


def test_callers_get_their_own_copy_of_a_cached_pool(local_pool: Any, settings: Any) -> None:
    from submissions.lookups import pool_for_submission

    settings.HIPJUDGE_LOOKUP_CACHE_TTL = 3600
    pool_for_submission(name="local")  # read and cached
    first = pool_for_submission(name="local")  # from the cache
    assert first is not None
    first.max_vms = 999
    again = pool_for_submission(name="local")
    assert again is not None
    assert again is not first
    assert again.max_vms == local_pool.max_vms
