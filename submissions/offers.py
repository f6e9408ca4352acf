"""What a pool offers per language: the modes a submission may use, and which of them runs on the
agent's emulated device (the CPU) instead of the language's GPU. One place for the submit check
(services), the pool listing (limits.apis), the problem page (web) and the CLI (through the API).

A language the pool's device runs takes every mode. Without that GPU a pool may still
- check hip/cuda on the emulated device (`Pool.emulated_languages`): mode check only, since
  emulated times mean nothing;
- compile-check them with the real compiler (`Pool.compile_only_languages`): mode compile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.protocol import EMULATED_CASE_BYTES, EMULATED_TARGETS, INTERPRETED_CASE_BYTES, ResourceLimits
from core.exceptions import ApplicationError
from fleets.models import Pool
from submissions.models import Mode

EMULATED_LABEL = "Check on CPU (emulated)"
EMULATED_TAG = "emulated (CPU)"


@dataclass(frozen=True)
class LanguageOffer:
    language: str
    modes: tuple[str, ...]
    emulated: bool = False  # mode check runs on the emulated device; compile keeps the real compiler

    def as_dict(self) -> dict[str, Any]:
        return {"language": self.language, "modes": list(self.modes), "emulated": self.emulated}


def pool_offers(*, pool: Pool) -> list[LanguageOffer]:
    """Each language the pool takes, with its modes (in Mode's order)."""
    offers = [LanguageOffer(language, tuple(Mode.values)) for language in pool.accepted_languages]
    emulated, compile_only = pool.emulated_languages, pool.compile_only_languages
    for language in dict.fromkeys([*emulated, *compile_only]):
        if language in pool.accepted_languages:
            continue
        modes = tuple(m for m in Mode.values if (m == Mode.CHECK and language in emulated)
                      or (m == Mode.COMPILE and language in compile_only))
        offers.append(LanguageOffer(language, modes, emulated=language in emulated))
    return offers


def is_emulated(*, pool: Pool, language: str, mode: str) -> bool:
    """Whether a submission in this language and mode is judged on the emulated device."""
    return mode == Mode.CHECK and language in pool.emulated_languages


def emulated_limits() -> str:
    """The limits of a check on the emulated device, said where a user chooses it."""
    budget = EMULATED_CASE_BYTES // (1024 * 1024)
    return (f"{EMULATED_LABEL}: your HIP or CUDA kernel runs on the server's CPU, not on a GPU. Check only: "
            "the tests run, with wavefronts of 64 lanes for HIP and warps of 32 for CUDA, on the test cases of "
            f"up to {budget} MiB of buffers (larger ones are skipped), "
            f"{ResourceLimits().emulated_check_s:g} s for them all; "
            "no benchmark, no timing, no leaderboard "
            "(emulated times mean nothing). Out-of-bounds accesses, barrier divergence and bad launches are "
            "caught. Not modelled: races and the GPU memory model, lockstep execution without barriers, timing, "
            "occupancy, LDS bank conflicts and caches. It compiles HIP as for an MI300X "
            f"({EMULATED_TARGETS['hip']}) and CUDA as for an H100 ({EMULATED_TARGETS['cuda']}): half, bfloat16 "
            "and fp8 types and matrix instructions (MFMA, WMMA) work; inline assembly, cooperative groups, vendor "
            "libraries and any builtin or header it does not model are compile errors that name them. Triton "
            "kernels run in Triton's interpreter instead, on the test cases of up to "
            f"{INTERPRETED_CASE_BYTES // (1024 * 1024)} MiB of buffers; their compile for gfx942 and sm_90 reports "
            "registers, LDS, occupancy and matrix-core instructions.")


def _described(offer: LanguageOffer) -> str:
    if len(offer.modes) == len(Mode.values):
        return offer.language
    return f"{offer.language} ({', '.join(offer.modes)})"


def offer_refusal(*, pool: Pool, language: str, mode: str) -> ApplicationError | None:
    """Why this pool cannot take the language in this mode, naming what it would take; None if it can."""
    offers = pool_offers(pool=pool)
    offer = next((o for o in offers if o.language == language), None)
    if offer is not None and mode in offer.modes:
        return None
    extra: dict[str, Any] = {"field": "language", "accepted": pool.accepted_languages,
                             "offers": [o.as_dict() for o in offers]}
    if offer is None:
        return ApplicationError(f"language: pool {pool.name!r} takes {', '.join(map(_described, offers))}, "
                                f"not {language}.", extra)
    if not offer.emulated:
        return ApplicationError(f"language: pool {pool.name!r} can only compile-check {language} (mode compile); "
                                f"it runs {', '.join(pool.accepted_languages)}.",
                                {**extra, "compile_only": pool.compile_only_languages})
    possible = " or ".join(f"{m} ({EMULATED_LABEL})" if m == Mode.CHECK else m for m in offer.modes)
    why = f"there is no {language} compiler there" if mode == Mode.COMPILE else "emulated times mean nothing"
    return ApplicationError(
        f"mode: pool {pool.name!r} has no GPU for {language}; it checks {language} kernels on the emulated "
        f"device (CPU), so mode {mode} is not possible ({why}). Possible for {language} there: mode {possible}.",
        {**extra, "field": "mode", "modes": list(offer.modes), "emulated": True})
