"""Search the whole database for a planted value."""

from django.db import connection


def columns_containing(needle: str) -> list[str]:
    """``table.column`` of every text, varchar, json or tsvector column in which ``needle`` occurs."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT table_name, column_name FROM information_schema.columns
               WHERE table_schema = 'public'
                 AND data_type IN ('text', 'character varying', 'jsonb', 'json', 'tsvector')"""
        )
        columns = cursor.fetchall()
        hits = []
        for table, column in columns:
            cursor.execute(
                f'SELECT 1 FROM "{table}" WHERE lower("{column}"::text) LIKE %s LIMIT 1', [f"%{needle.lower()}%"]
            )
            if cursor.fetchone():
                hits.append(f"{table}.{column}")
        return hits
