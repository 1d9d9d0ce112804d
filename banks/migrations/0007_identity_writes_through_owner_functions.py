"""The tables that grant access are written only through functions the maintenance role owns.

The request role reads API keys, memberships, users and bank permissions (authentication
needs them) but holds no INSERT or UPDATE on them (``memoryhub.database.REQUEST_ROLE_TABLE_GRANTS``).
Request code writes them through these ``SECURITY DEFINER`` functions, each of which does one
thing, checks that the session is scoped to the tenant it touches (``memoryhub_tenant()``,
which needs that tenant's HMAC token) and refuses anything else with ``insufficient_privilege``:

- ``memoryhub_api_key_insert``: a key in the session's tenant, for one of its banks; no
  longer-lived than the tenant allows; a key issued by a key never exceeds its parent;
- ``memoryhub_api_keys_revoke``: keys of the session's tenant and every key they issued;
- ``memoryhub_membership_set`` / ``memoryhub_membership_remove``: a person's tenant role
  (removal takes their bank permissions in the tenant with it);
- ``memoryhub_bank_permissions_set``: a person's permissions on one bank of the tenant;
- ``memoryhub_user_create``: an account that is neither staff nor superuser, from a session
  scoped to a tenant (a tenant admin adding a member, an operator creating a tenant's admin).

Row-level security on the same tables lets the request role read every row (a key is found
before its tenant is known) but change or delete rows of its own tenant only: banks,
tenants (rename), invitations (an accepted one grants a membership; the invitee's request is
scoped to the invitation's tenant), and the deletes a bank's removal cascades to (its keys
and permissions).
"""

from django.db import migrations

TENANT = "(SELECT public.memoryhub_tenant())"

FUNCTIONS = r"""
CREATE FUNCTION public.memoryhub_require_tenant(p_tenant bigint) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF p_tenant IS NULL OR p_tenant IS DISTINCT FROM public.memoryhub_tenant() THEN
        RAISE EXCEPTION 'this session is not scoped to tenant %', p_tenant USING ERRCODE = 'insufficient_privilege';
    END IF;
END
$fn$;

CREATE FUNCTION public.memoryhub_api_key_insert(
    p_tenant bigint, p_bank bigint, p_name text, p_prefix text, p_secret_hash text, p_created_by integer,
    p_created_by_key bigint, p_scopes jsonb, p_expires_at timestamptz, p_rate_limit integer
) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_id bigint;
    v_max_days integer;
    v_parent public.banks_apikey%ROWTYPE;
BEGIN
    PERFORM public.memoryhub_require_tenant(p_tenant);
    IF p_bank IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM public.banks_bank WHERE id = p_bank AND tenant_id = p_tenant
    ) THEN
        RAISE EXCEPTION 'bank % is not in tenant %', p_bank, p_tenant USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF jsonb_typeof(p_scopes) IS DISTINCT FROM 'array' OR jsonb_array_length(p_scopes) = 0 OR EXISTS (
        SELECT 1 FROM jsonb_array_elements(p_scopes) AS s(v)
        WHERE jsonb_typeof(s.v) <> 'string' OR s.v #>> '{}' NOT IN ('read', 'write', 'review', 'admin')
    ) THEN
        RAISE EXCEPTION 'scopes must be a non-empty list of read, write, review, admin'
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT max_api_key_lifetime_days INTO v_max_days FROM public.banks_tenant WHERE id = p_tenant;
    -- A day of slack for clocks: the service checks the exact bound and gives the error code.
    IF v_max_days IS NOT NULL AND (
        p_expires_at IS NULL OR p_expires_at > clock_timestamp() + make_interval(days => v_max_days + 1)
    ) THEN
        RAISE EXCEPTION 'tenant % allows keys of at most % days', p_tenant, v_max_days USING ERRCODE = 'check_violation';
    END IF;
    IF p_created_by_key IS NOT NULL THEN
        SELECT * INTO v_parent FROM public.banks_apikey WHERE id = p_created_by_key AND tenant_id = p_tenant;
        IF NOT FOUND OR v_parent.revoked_at IS NOT NULL
           OR (v_parent.expires_at IS NOT NULL AND (p_expires_at IS NULL OR p_expires_at > v_parent.expires_at))
           OR (v_parent.bank_id IS NOT NULL AND p_bank IS DISTINCT FROM v_parent.bank_id)
           OR (p_scopes ? 'admin' AND NOT v_parent.scopes ? 'admin')
           OR (p_scopes ? 'write' AND NOT v_parent.scopes ?| ARRAY['write', 'admin'])
           OR (p_scopes ? 'review' AND NOT v_parent.scopes ?| ARRAY['review', 'admin'])
           OR (v_parent.rate_limit_per_minute IS NOT NULL
               AND (p_rate_limit IS NULL OR p_rate_limit > v_parent.rate_limit_per_minute))
        THEN
            RAISE EXCEPTION 'a key may not issue a key that exceeds it' USING ERRCODE = 'insufficient_privilege';
        END IF;
    END IF;
    INSERT INTO public.banks_apikey (tenant_id, bank_id, name, prefix, secret_hash, created_by_id, created_by_key_id,
                                     created_at, scopes, expires_at, rate_limit_per_minute)
    VALUES (p_tenant, p_bank, p_name, p_prefix, p_secret_hash, p_created_by, p_created_by_key,
            now(), p_scopes, p_expires_at, p_rate_limit)
    RETURNING id INTO v_id;
    RETURN v_id;
END
$fn$;

CREATE FUNCTION public.memoryhub_api_keys_revoke(p_tenant bigint, p_keys bigint[]) RETURNS SETOF bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    PERFORM public.memoryhub_require_tenant(p_tenant);
    -- The keys, and every key they issued, at any depth: none outlives the key that made it.
    RETURN QUERY
    WITH RECURSIVE lineage(id) AS (
        SELECT k.id FROM public.banks_apikey AS k WHERE k.tenant_id = p_tenant AND k.id = ANY(p_keys)
        UNION
        SELECT c.id FROM public.banks_apikey AS c JOIN lineage AS l ON c.created_by_key_id = l.id
        WHERE c.tenant_id = p_tenant
    )
    UPDATE public.banks_apikey AS k SET revoked_at = now()
    FROM lineage WHERE k.id = lineage.id AND k.revoked_at IS NULL
    RETURNING k.id;
END
$fn$;

CREATE FUNCTION public.memoryhub_membership_set(p_tenant bigint, p_user integer, p_role text) RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_previous text;
BEGIN
    PERFORM public.memoryhub_require_tenant(p_tenant);
    IF p_role IS NULL OR p_role NOT IN ('admin', 'analyst', 'viewer') THEN
        RAISE EXCEPTION 'unknown tenant role %', p_role USING ERRCODE = 'check_violation';
    END IF;
    SELECT role INTO v_previous FROM public.banks_membership WHERE tenant_id = p_tenant AND user_id = p_user FOR UPDATE;
    INSERT INTO public.banks_membership (tenant_id, user_id, role, created_at)
    VALUES (p_tenant, p_user, p_role, now())
    ON CONFLICT (tenant_id, user_id) DO UPDATE SET role = EXCLUDED.role;
    RETURN v_previous;  -- NULL when the person was not a member
END
$fn$;

CREATE FUNCTION public.memoryhub_membership_remove(p_tenant bigint, p_user integer) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_removed integer;
BEGIN
    PERFORM public.memoryhub_require_tenant(p_tenant);
    DELETE FROM public.banks_membership WHERE tenant_id = p_tenant AND user_id = p_user;
    IF NOT FOUND THEN
        RETURN NULL;  -- not a member
    END IF;
    DELETE FROM public.banks_bankuserobjectpermission AS p USING public.banks_bank AS b
    WHERE p.content_object_id = b.id AND b.tenant_id = p_tenant AND p.user_id = p_user;
    GET DIAGNOSTICS v_removed = ROW_COUNT;
    RETURN v_removed;
END
$fn$;

CREATE FUNCTION public.memoryhub_bank_permissions_set(p_bank bigint, p_user integer, p_grant text[], p_revoke text[])
RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    PERFORM public.memoryhub_require_tenant((SELECT tenant_id FROM public.banks_bank WHERE id = p_bank));
    IF EXISTS (
        SELECT unnest(coalesce(p_grant, '{}') || coalesce(p_revoke, '{}'))
        EXCEPT SELECT unnest(ARRAY['view_bank', 'review_bank', 'change_bank', 'admin_bank'])
    ) THEN
        RAISE EXCEPTION 'only bank role permissions can be set here' USING ERRCODE = 'check_violation';
    END IF;
    DELETE FROM public.banks_bankuserobjectpermission AS p
    USING public.auth_permission AS a, public.django_content_type AS ct
    WHERE p.permission_id = a.id AND a.content_type_id = ct.id AND ct.app_label = 'banks' AND ct.model = 'bank'
      AND p.content_object_id = p_bank AND p.user_id = p_user AND a.codename = ANY(coalesce(p_revoke, '{}'));
    INSERT INTO public.banks_bankuserobjectpermission (permission_id, user_id, content_object_id)
    SELECT a.id, p_user, p_bank FROM public.auth_permission AS a
    JOIN public.django_content_type AS ct ON ct.id = a.content_type_id
    WHERE ct.app_label = 'banks' AND ct.model = 'bank' AND a.codename = ANY(coalesce(p_grant, '{}'))
    ON CONFLICT DO NOTHING;
END
$fn$;

CREATE FUNCTION public.memoryhub_user_create(p_username text, p_email text, p_password text) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_id integer;
BEGIN
    IF public.memoryhub_tenant() IS NULL THEN
        RAISE EXCEPTION 'accounts are created from a session scoped to a tenant' USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO public.auth_user (password, last_login, is_superuser, username, first_name, last_name, email,
                                  is_staff, is_active, date_joined)
    VALUES (p_password, NULL, false, p_username, '', '', coalesce(p_email, ''), false, true, now())
    RETURNING id INTO v_id;
    RETURN v_id;
END
$fn$;
"""

DROP_FUNCTIONS = """
DROP FUNCTION public.memoryhub_user_create(text, text, text);
DROP FUNCTION public.memoryhub_bank_permissions_set(bigint, integer, text[], text[]);
DROP FUNCTION public.memoryhub_membership_remove(bigint, integer);
DROP FUNCTION public.memoryhub_membership_set(bigint, integer, text);
DROP FUNCTION public.memoryhub_api_keys_revoke(bigint, bigint[]);
DROP FUNCTION public.memoryhub_api_key_insert(bigint, bigint, text, text, text, integer, bigint, jsonb, timestamptz,
                                              integer);
DROP FUNCTION public.memoryhub_require_tenant(bigint);
"""

BANK_OF_ROW = f"EXISTS (SELECT 1 FROM public.banks_bank AS b WHERE b.id = content_object_id AND b.tenant_id = {TENANT})"

#: Per table: the policies besides ``maintenance_access`` (the owner's, every row). Every one admits reading.
POLICIES = {
    "banks_apikey": [
        "CREATE POLICY request_last_use ON banks_apikey FOR UPDATE USING (true) WITH CHECK (true)",  # last_used_at
        f"CREATE POLICY request_delete ON banks_apikey FOR DELETE USING (tenant_id = {TENANT})",
    ],
    "banks_bankuserobjectpermission": [
        f"CREATE POLICY request_delete ON banks_bankuserobjectpermission FOR DELETE USING ({BANK_OF_ROW})",
    ],
    "banks_bankgroupobjectpermission": [
        f"CREATE POLICY request_delete ON banks_bankgroupobjectpermission FOR DELETE USING ({BANK_OF_ROW})",
    ],
    "banks_bank": [
        f"CREATE POLICY request_insert ON banks_bank FOR INSERT WITH CHECK (tenant_id = {TENANT})",
        f"CREATE POLICY request_update ON banks_bank FOR UPDATE USING (tenant_id = {TENANT}) "
        f"WITH CHECK (tenant_id = {TENANT})",
        f"CREATE POLICY request_delete ON banks_bank FOR DELETE USING (tenant_id = {TENANT})",
    ],
    "banks_invitation": [
        f"CREATE POLICY request_insert ON banks_invitation FOR INSERT WITH CHECK (tenant_id = {TENANT})",
        f"CREATE POLICY request_update ON banks_invitation FOR UPDATE USING (tenant_id = {TENANT}) "
        f"WITH CHECK (tenant_id = {TENANT})",
    ],
    "banks_tenant": [
        "CREATE POLICY request_insert ON banks_tenant FOR INSERT WITH CHECK (true)",  # a new tenant grants nothing
        f"CREATE POLICY request_update ON banks_tenant FOR UPDATE USING (id = {TENANT}) WITH CHECK (id = {TENANT})",
    ],
}
POLICY_NAMES = ("maintenance_access", "request_read", "request_last_use", "request_insert", "request_update",
                "request_delete")  # fmt: skip


def enable_row_security(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for table, policies in POLICIES.items():
            cursor.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
            cursor.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
            cursor.execute(f"CREATE POLICY maintenance_access ON {table} TO CURRENT_USER USING (true) WITH CHECK (true)")
            cursor.execute(f"CREATE POLICY request_read ON {table} FOR SELECT USING (true)")
            for statement in policies:
                cursor.execute(statement)


def disable_row_security(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for table in POLICIES:
            for name in POLICY_NAMES:
                cursor.execute(f"DROP POLICY IF EXISTS {name} ON {table}")
            cursor.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
            cursor.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")


class Migration(migrations.Migration):
    dependencies = [
        ("banks", "0006_api_key_lineage_tenant_key_lifetime_manage_tenants"),
        ("beliefs", "0013_maintenance_role"),  # memoryhub_tenant()
        ("guardian", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunSQL(FUNCTIONS, reverse_sql=DROP_FUNCTIONS),
        migrations.RunPython(enable_row_security, reverse_code=disable_row_security),
    ]
