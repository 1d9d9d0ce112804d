from django.apps import AppConfig


class WorkloadsConfig(AppConfig):
    name = "workloads"
    verbose_name = "Workloads"

    def ready(self):
        from workloads import extensions  # imports models: only once the app registry is ready

        extensions.register()
