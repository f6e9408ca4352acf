"""A kernel author without a GPU checks a HIP kernel on the CPU: the problem page offers "Check on
CPU (emulated)" for hip with its limits beside it, and the kernel written in the editor gets its
verdict from the emulated device."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import shot
from tests.browser.test_journeys import JUDGE_TIMEOUT_MS, _sign_up

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.timeout(300)]

# A HIP kernel as a user writes it: one element per thread, the grid rounded up.
HIP_KERNEL = """#include <hip/hip_runtime.h>

__global__ void add(const float* a, const float* b, float* c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    unsigned blocks = (unsigned)((n + 255) / 256);
    add<<<blocks, 256>>>(a, b, c, n);
}
"""
# The same without its bounds check: the last block reads and writes past the ends of a, b and c.
HIP_KERNEL_OUT_OF_BOUNDS = HIP_KERNEL.replace("if (i < n) c[i]", "c[i]")


def _problem_page(page: Any, site: str, username: str) -> None:
    _sign_up(page, site, username)
    page.goto(f"{site}/problems/vector-add/")
    page.locator(".CodeMirror").wait_for()


def _write_in_the_editor(page: Any, source: str) -> None:
    page.locator(".CodeMirror").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(source)  # as typed, without the editor closing brackets on its own


def test_choosing_hip_offers_a_check_on_cpu_with_its_limits(site: str, page: Any) -> None:
    from playwright.sync_api import expect

    _problem_page(page, site, "hedy")
    emulated = page.get_by_role("button", name="Check on CPU (emulated)")
    benchmark = page.get_by_role("button", name="Submit: check + benchmark")
    check = page.get_by_role("button", name="Check only", exact=True)
    note = page.get_by_test_id("emulated-note")
    expect(emulated).to_be_hidden()  # cpp runs for real on the local pool
    expect(note).to_be_hidden()
    expect(benchmark).to_be_visible()

    page.locator("#id_language").select_option("hip")
    expect(emulated).to_be_visible()
    expect(note).to_be_visible()
    expect(note).to_contain_text("Check only")
    expect(note).to_contain_text("no timing")
    expect(benchmark).to_be_hidden()
    expect(check).to_be_hidden()
    assert "hip/hip_runtime.h" in page.evaluate("document.querySelector('.CodeMirror').CodeMirror.getValue()")
    shot(page, "13-check-on-cpu-offered")

    page.locator("#id_language").select_option("cpp")
    expect(emulated).to_be_hidden()
    expect(benchmark).to_be_visible()
    page.locator("#id_language").select_option("cuda")
    _write_in_the_editor(page, HIP_KERNEL.replace("hip/hip_runtime.h", "cuda_runtime.h"))
    emulated.click()
    page.wait_for_url(re.compile(r".*/submissions/[0-9a-f-]{36}/$"))
    expect(page.get_by_test_id("emulated")).to_have_text("emulated (CPU)")
    assert page.js_errors == []


def test_a_hip_kernel_written_in_the_editor_is_checked_on_cpu(site: str, emulating_pool: Any, page: Any) -> None:
    from playwright.sync_api import expect

    _problem_page(page, site, "grace")
    page.locator("#id_language").select_option("hip")
    _write_in_the_editor(page, HIP_KERNEL)
    page.get_by_role("button", name="Check on CPU (emulated)").click()
    page.wait_for_url(re.compile(r".*/submissions/[0-9a-f-]{36}/$"))
    expect(page.get_by_test_id("status")).to_have_text("Checked", timeout=JUDGE_TIMEOUT_MS)
    expect(page.get_by_test_id("emulated")).to_have_text("emulated (CPU)")
    expect(page.locator("p.reason")).to_contain_text("emulated device")
    assert page.locator("ul.ticks li.good").count() >= 4
    assert page.locator("ul.ticks li.bad").count() == 0
    assert page.locator("table.bench").count() == 0  # no timing on the emulator
    shot(page, "14-checked-on-cpu")

    page.get_by_role("link", name="Edit and resubmit").click()
    page.locator(".CodeMirror").wait_for()
    _write_in_the_editor(page, HIP_KERNEL_OUT_OF_BOUNDS)
    page.get_by_role("button", name="Check on CPU (emulated)").click()
    # "Edit and resubmit" opened the form at #editor: the browser keeps the fragment across the redirect.
    page.wait_for_url(re.compile(r".*/submissions/[0-9a-f-]{36}/(#editor)?$"))
    expect(page.get_by_test_id("status")).to_have_text("Runtime error", timeout=JUDGE_TIMEOUT_MS)
    expect(page.locator("p.reason")).to_contain_text(re.compile(r"out-of-bounds (read|write) of device buffer '[abc]'"))
    shot(page, "15-out-of-bounds-on-cpu")
    assert page.js_errors == []
