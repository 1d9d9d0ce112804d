"""``manage.py migrate`` runs as the maintenance role (the ``maintenance`` alias) unless told otherwise.

The request role (``default``) owns nothing and may not create tables; the role that
migrates owns every table and is the one the ``maintenance_access`` policies admit.
"""

from django.core.management.commands.migrate import Command as DjangoMigrateCommand

from memoryhub.tenancy import maintenance_alias


class Command(DjangoMigrateCommand):
    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.set_defaults(database=maintenance_alias())
