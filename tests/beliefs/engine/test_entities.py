from beliefs.engine.entities import entity_key, extract_entities, query_keys


def kinds(text):
    return {(entity.key, entity.kind) for entity in extract_entities(text)}


def test_ops_entities():
    found = kinds("Alert DiskLatencyHigh fired on db-01; INC-2291 opened for checkout-api by dana@acme.com")
    assert {
        ("db01", "host"),
        ("disklatencyhigh", "signature"),
        ("inc2291", "ticket"),
        ("checkoutapi", "service"),
        ("danaacmecom", "email"),
    } <= found


def test_names_titles_and_qualified_subjects():
    found = kinds('Caroline: I finished "Becoming Nicole" by Amy Ellis Nutt; see account:acme-corp')
    assert {("becomingnicole", "title"), ("amyellisnutt", "name"), ("acmecorp", "account")} <= found


def test_generic_capitalised_words_are_not_entities():
    keys = {entity.key for entity in extract_entities("Hey Caroline! Good to see you. Thanks, I will.")}
    assert keys == {"caroline"}


def test_spellings_normalise_to_one_key():
    assert entity_key("db-01") == entity_key("DB01") == entity_key("db 01") == "db01"


def test_lowercase_query_still_reaches_entities():
    assert {"db01", "checkoutapi"} <= query_keys("what broke on db-01 and checkout api?")
