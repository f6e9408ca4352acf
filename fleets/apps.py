from django.apps import AppConfig


class FleetsConfig(AppConfig):
    name = "fleets"
    verbose_name = "Pools and VMs"
