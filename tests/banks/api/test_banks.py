from banks.models import Bank


def test_create_and_get_bank(caller):
    response = caller.client.post(
        "/api/v1/banks/", {"slug": "churn", "name": "Churn agent", "background": "SMB accounts"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["slug"] == "churn" and response.json()["tenant"] == caller.tenant.slug
    assert Bank.objects.get(tenant=caller.tenant, slug="churn").background == "SMB accounts"
    assert caller.client.get("/api/v1/banks/churn/").json()["name"] == "Churn agent"


def test_duplicate_slug_in_tenant_is_409(caller):
    response = caller.client.post("/api/v1/banks/", {"slug": caller.bank.slug}, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "bank_slug_taken"


def test_same_slug_in_another_tenant_is_fine(caller, other_caller):
    response = other_caller.client.post("/api/v1/banks/", {"slug": caller.bank.slug}, format="json")
    assert response.status_code == 201


def test_invalid_slug_is_400(caller):
    response = caller.client.post("/api/v1/banks/", {"slug": "Not A Slug!"}, format="json")
    assert response.status_code == 400 and "slug" in response.json()["extra"]["fields"]


def test_bank_scoped_key_cannot_create_banks(db):
    from tests.helpers.callers import make_caller

    scoped = make_caller(bank_scoped=True)
    response = scoped.client.post("/api/v1/banks/", {"slug": "sneaky"}, format="json")
    assert response.status_code == 403
    assert not Bank.objects.filter(slug="sneaky").exists()
