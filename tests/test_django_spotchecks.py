"""Cartograph on a real codebase: the Django 5.1.4 sdist (downloaded from PyPI once, cached)."""

from __future__ import annotations

import pytest
from cartograph.index import index_repository
from cartograph.query import callers, context, search, stats
from cartograph.store.sqlite import open_sqlite

from benchmark.corpora import fetch

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def django(tmp_path_factory):
    root = fetch("django", "5.1.4")
    store = open_sqlite(tmp_path_factory.mktemp("django") / "graph.db")
    result = index_repository(store, root, name="django")
    return store, result


def _callers(store, qualname: str) -> dict[str, str]:
    page = callers(store, qualname, limit=500)
    return {n.symbol.qualname: n.via for n in page.items}


def test_index_succeeds_with_partial_syntax_errors(django):
    store, result = django
    assert result.files >= 2700 and result.parsed == result.files
    assert "tests/test_runner_apps/tagged/tests_syntax_error.py" in result.syntax_errors
    numbers = stats(store, "django")
    assert numbers.symbols["method"] > 20_000 and numbers.symbols["class"] > 9_000


def test_manager_method_called_through_self(django):
    store, _ = django
    found = _callers(store, "django.contrib.auth.models.UserManager._create_user")
    assert found["django.contrib.auth.models.UserManager.create_user"] == "self"
    assert found["django.contrib.auth.models.UserManager.create_superuser"] == "self"
    normalize = _callers(store, "django.contrib.auth.base_user.BaseUserManager.normalize_email")
    assert normalize["django.contrib.auth.models.UserManager._create_user"] == "inheritance"


def test_method_called_through_a_typed_receiver(django):
    store, _ = django
    # `except ValidationError as e: e.update_error_dict(errors)` types `e`
    found = _callers(store, "django.core.exceptions.ValidationError.update_error_dict")
    assert found["django.db.models.base.Model.full_clean"] == "annotation"


def test_reexported_function_is_the_callee_of_package_importers(django):
    store, _ = django
    # django/contrib/admin/options.py: `from django.urls import reverse` (django/urls/__init__.py
    # re-exports it from django.urls.base)
    found = _callers(store, "django.urls.base.reverse")
    assert found["django.contrib.admin.options.BaseModelAdmin.get_view_on_site_url"] == "import"
    ctx = context(store, "django.urls.base.reverse")
    assert any(r.symbol.qualname == "django.urls" and r.via == "export" for r in ctx.referenced_by)


def test_search_on_a_large_repository(django):
    store, _ = django
    hits = search(store, "get_queryset").hits
    assert hits[0].symbol.name == "get_queryset"
    concept = search(store, "password validator").hits
    assert any("password_validation" in h.symbol.qualname for h in concept[:10])


def test_a_function_decorated_through_a_factory_has_its_callers_by_name(django):
    """`capfirst` is `@keep_lazy_text` (= `keep_lazy(str)(func)`): a call of it runs the
    shared wrapper, which calls it back; its callers are the code that names it (issue 38:
    "called by: nothing" before), and not every caller of the shared wrapper."""
    store, _ = django
    found = _callers(store, "django.utils.text.capfirst")
    assert found["django.contrib.admin.utils.get_deleted_objects.format_callback"] == "decorated"
    assert found["django.db.models.fields.Field.formfield"] == "decorated"
    assert found["django.utils.functional.keep_lazy.decorator.wrapper"] == "wrapped"
    assert "django.utils.text.slugify" not in found
    assert not any(name.startswith("django.utils.text.slugify") for name in found)
