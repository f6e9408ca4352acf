"""Forms of the web pages. The submit form's fields (language, mode, pool, source, source_file)
are the API's, and a plain HTML POST works without JavaScript."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils import timezone

from core.exceptions import ApplicationError
from submissions.browse import DIFFICULTIES, FILTER_VALUE_HELP, FILTER_VALUE_RE, Facets, ProblemFilters
from submissions.models import (
    ACTIVE_STATUSES,
    SUCCESS_STATUSES,
    TERMINAL_STATUSES,
    VERDICT_STATUSES,
    WRONG_STATUSES,
    Language,
    Mode,
)
from submissions.services import source_from_upload

STATUS_GROUPS: dict[str, tuple[str, list[str]]] = {
    "": ("Any status", []),
    "running": ("Queued or running", list(ACTIVE_STATUSES)),
    "accepted": ("Accepted / checked", list(SUCCESS_STATUSES)),
    "failed": ("Failed", list(WRONG_STATUSES)),
    "other": ("Cancelled, rejected, error", [s for s in TERMINAL_STATUSES if s not in VERDICT_STATUSES]),
}

class SubmitForm(forms.Form):
    language = forms.ChoiceField(choices=Language.choices, initial=Language.CPP)
    # The two submit buttons carry the mode; the field stays for API-like posts and old clients.
    mode = forms.ChoiceField(choices=Mode.choices, initial=Mode.BENCHMARK)
    pool = forms.ChoiceField(choices=())
    source = forms.CharField(widget=forms.Textarea(attrs={
        "rows": 24, "spellcheck": "false", "autocapitalize": "off", "autocomplete": "off", "class": "code-input"}),
        required=False, strip=False, label="Source")
    source_file = forms.FileField(required=False, label="…or upload a file",
                                  help_text="A file replaces the text above (UTF-8, at most 64 KiB).")

    def __init__(self, *args: Any, pools: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["pool"]).choices = [(p.name, p.name) for p in pools]
        names = [p.name for p in pools]
        default = settings.HIPJUDGE_DEFAULT_POOL
        self.fields["pool"].initial = default if default in names else (names[0] if names else None)
        self.fields["source_file"].widget.attrs["accept"] = ".cpp,.cc,.cxx,.hip,.cu,.cuh,.h,.hpp,.txt"

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("source_file")
        if upload is not None:
            try:
                data["source"] = source_from_upload(upload)
            except ApplicationError as exc:
                raise forms.ValidationError(exc.message) from None
        if not (data.get("source") or "").strip():
            raise forms.ValidationError("Write your kernel in the editor or choose a file.")
        return data

class HistoryFilterForm(forms.Form):
    status = forms.ChoiceField(choices=[(k, v[0]) for k, v in STATUS_GROUPS.items()], required=False)
    problem = forms.ChoiceField(choices=(), required=False)
    language = forms.ChoiceField(choices=[("", "Any language"), *Language.choices], required=False)
    mode = forms.ChoiceField(choices=[("", "Any mode"), *Mode.choices], required=False)
    pool = forms.ChoiceField(choices=(), required=False)

    def __init__(self, *args: Any, problems: list[tuple[str, str]], pools: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["problem"]).choices = [("", "Any problem"), *problems]
        cast(forms.ChoiceField, self.fields["pool"]).choices = [("", "Any pool"), *((p, p) for p in pools)]

    def selector_filters(self) -> dict[str, Any]:
        """The filters submissions.selectors.submission_list understands."""
        if not self.is_valid():
            return {}
        data = self.cleaned_data
        statuses = STATUS_GROUPS.get(data.get("status") or "", ("", []))[1]
        return {"status": ",".join(statuses), "problem": data.get("problem"), "language": data.get("language"),
                "mode": data.get("mode"), "pool": data.get("pool")}


class ProblemFilterForm(forms.Form):
    """The problem list's filters (GET, no JavaScript): each select lists every value with the number
    of problems choosing it would show (submissions.browse.Facets). A value no problem has is kept
    (0 problems); a malformed one is an error."""

    tag = forms.CharField(required=False, max_length=40, widget=forms.Select)
    type = forms.CharField(required=False, max_length=40, widget=forms.Select, label="Data type")
    difficulty = forms.ChoiceField(
        choices=[("", "Any difficulty"), *((d, d) for d in DIFFICULTIES)], required=False,
        error_messages={"invalid_choice": f"%(value)s is not one of {', '.join(DIFFICULTIES)}"})

    def clean_tag(self) -> str:
        return self._value("tag")

    def clean_type(self) -> str:
        return self._value("type")

    def _value(self, name: str) -> str:
        value = (self.cleaned_data.get(name) or "").strip().lower()
        if value and not FILTER_VALUE_RE.match(value):
            raise forms.ValidationError(f"{value!r} is not a {name} ({FILTER_VALUE_HELP})")
        return value

    def filters(self) -> ProblemFilters:
        if not self.is_valid():
            return ProblemFilters()
        return ProblemFilters(**{k: self.cleaned_data[k] for k in ("tag", "type", "difficulty")})

    def show_counts(self, facets: Facets) -> None:
        """Put each value's count in its option, the chosen value included where no problem has it."""
        chosen = self.filters()
        for name, values, anything in (("tag", facets.tags, "Any tag"), ("type", facets.types, "Any data type")):
            options = dict(values)
            if getattr(chosen, name) and getattr(chosen, name) not in options:
                options[getattr(chosen, name)] = 0
            self.fields[name].widget.choices = [("", anything), *((v, f"{v} ({n})") for v, n in options.items())]
        counts = dict(facets.difficulties)
        cast(forms.ChoiceField, self.fields["difficulty"]).choices = [
            ("", "Any difficulty"), *((d, f"{d} ({counts.get(d, 0)})") for d in DIFFICULTIES)]


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=False, help_text="Optional; needed only to reset a forgotten password.")

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]  # django-stubs omits this Meta
        model = get_user_model()
        fields = ("username", "email")

class TokenCreateForm(forms.Form):
    """A new API token (the others keep working), with an optional expiry."""

    expires_in_days = forms.TypedChoiceField(
        label="Expires", coerce=int, empty_value=None, required=False, initial="90",
        choices=[("7", "in 7 days"), ("30", "in 30 days"), ("90", "in 90 days"), ("365", "in a year"), ("", "never")])

    def expires_at(self) -> datetime | None:
        days = self.cleaned_data.get("expires_in_days")
        return timezone.now() + timedelta(days=days) if days else None

