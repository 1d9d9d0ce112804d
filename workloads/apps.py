from django.apps import AppConfig


class WorkloadsConfig(AppConfig):
    name = "workloads"
    verbose_name = "Workloads"

    def ready(self):
        from workloads import review_handlers  # imports models: only once the app registry is ready

        review_handlers.register()
