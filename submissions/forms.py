from __future__ import annotations

from typing import Any, cast

from django import forms
from django.conf import settings

from fleets.selectors import fleet_list
from submissions.models import Language, Mode


class SubmitForm(forms.Form):
    language = forms.ChoiceField(choices=Language.choices, initial=Language.CPP)
    mode = forms.ChoiceField(choices=Mode.choices, initial=Mode.BENCHMARK)
    pool = forms.ChoiceField(choices=())
    source = forms.CharField(widget=forms.Textarea(attrs={"rows": 18, "cols": 100, "spellcheck": "false"}),
                             required=False, strip=False, label="Source (paste)")
    source_file = forms.FileField(required=False, label="…or upload a file")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pools = [(f.name, f"{f.title or f.name} ({f.device}, {getattr(f, 'warm_vms', 0)} warm)") for f in fleet_list()]
        cast(forms.ChoiceField, self.fields["pool"]).choices = pools
        self.fields["pool"].initial = settings.HIPJUDGE_DEFAULT_POOL

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("source_file")
        if upload is not None:
            raw = upload.read(settings.HIPJUDGE_MAX_SOURCE_BYTES + 1)
            if len(raw) > settings.HIPJUDGE_MAX_SOURCE_BYTES:
                raise forms.ValidationError(f"The file is larger than {settings.HIPJUDGE_MAX_SOURCE_BYTES} bytes.")
            try:
                data["source"] = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("The file is not valid UTF-8 text.") from None
        if not (data.get("source") or "").strip():
            raise forms.ValidationError("Paste your source or choose a file.")
        return data
