"""Issue 40: the cap of open event streams held per web process, so one user held 16 streams on two
processes. The cap now lives in the database every process shares (core.stream_leases): it holds
against claims from several connections at once, and a stream whose process died gives its place
back once its lease expires."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections

from core.models import StreamLease
from core.stream_leases import stream_lease_claim, stream_lease_release, stream_leases_renew
from tests.support.clock import stepped_clock

CAP = 3
CLAIMERS = 8  # connections claiming for one user at the same time: "processes"


@pytest.mark.django_db(transaction=True)
def test_the_cap_holds_across_connections_claiming_at_once(owner: Any, other_user: Any) -> None:
    claimed: list[int | None] = []
    start = threading.Barrier(CLAIMERS)

    def claimer() -> None:
        try:
            start.wait(timeout=30)
            claimed.append(stream_lease_claim(user_id=owner.pk, cap=CAP))
        finally:
            connections.close_all()  # this thread's own connection, as another process has its own

    threads = [threading.Thread(target=claimer) for _ in range(CLAIMERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(claimed) == CLAIMERS
    assert len([c for c in claimed if c is not None]) == CAP
    assert sorted(StreamLease.objects.filter(user=owner).values_list("slot", flat=True)) == [0, 1, 2]
    assert stream_lease_claim(user_id=other_user.pk, cap=CAP) is not None  # another user: their own count


@pytest.mark.django_db
def test_an_ended_stream_gives_its_place_back_at_once(owner: Any) -> None:
    held = [stream_lease_claim(user_id=owner.pk, cap=CAP) for _ in range(CAP)]
    assert stream_lease_claim(user_id=owner.pk, cap=CAP) is None
    stream_lease_release(lease_id=held[1])  # type: ignore[arg-type]
    assert stream_lease_claim(user_id=owner.pk, cap=CAP) is not None


@pytest.mark.django_db
def test_a_killed_processs_streams_give_their_places_back_when_their_leases_expire(owner: Any, settings: Any) -> None:
    settings.HIPJUDGE_SSE_LEASE = 30
    with stepped_clock() as clock:
        alive = stream_lease_claim(user_id=owner.pk, cap=2)  # its process renews it
        dead = stream_lease_claim(user_id=owner.pk, cap=2)  # its process was killed: never renewed
        assert alive is not None and dead is not None
        clock.advance(20)
        assert stream_leases_renew(lease_ids=[alive]) == 1
        assert stream_lease_claim(user_id=owner.pk, cap=2) is None  # both still within their lease
        clock.advance(11)  # 31 s after the dead one's last renewal; 11 s after the live one's
        assert stream_lease_claim(user_id=owner.pk, cap=2) is not None
        assert not StreamLease.objects.filter(pk=dead).exists()
        assert StreamLease.objects.filter(pk=alive).exists()
        assert stream_lease_claim(user_id=owner.pk, cap=2) is None


@pytest.mark.django_db
def test_a_renewal_clears_the_expired_leases_of_every_user(owner: Any, other_user: Any, settings: Any) -> None:
    settings.HIPJUDGE_SSE_LEASE = 30
    with stepped_clock() as clock:
        gone = stream_lease_claim(user_id=other_user.pk, cap=2)  # of a killed process; its user never returns
        clock.advance(31)
        mine = stream_lease_claim(user_id=owner.pk, cap=2)
        assert stream_leases_renew(lease_ids=[mine]) == 1  # type: ignore[list-item]
    assert list(StreamLease.objects.values_list("pk", flat=True)) == [mine]
    assert gone != mine
