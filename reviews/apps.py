from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "reviews"
    verbose_name = "Reviews"

    def ready(self):
        from banks.web.nav import register_nav_badge  # imports models: only once the app registry is ready
        from reviews.selectors import pending_count

        register_nav_badge("pending_reviews", pending_count)
