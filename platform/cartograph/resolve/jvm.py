"""Java's and Kotlin's rules for the by-name tier (see cartograph.resolve.generic).

Both declare packages and import classes by their full name; a package's files are found in
directories whose path ends with the package's (Maven, Gradle and Android layouts) and in
files named after a class (`Foo.java`, `Foo.kt`), whichever of the two languages they are
in. A class found in the same package counts as imported (via "import"). Java static imports
and Kotlin function imports bind bare calls; Kotlin builds an instance with `Foo(...)`, and
its classes may be extended in other files of the package.
"""

from __future__ import annotations

from cartograph.resolve.generic import NamedPackageRules, Site, Unit, words


class JvmRules(NamedPackageRules):
    this_names = frozenset({"this"})
    super_names = frozenset({"super"})
    implicit_this = True
    same_package_via = "import"
    class_file_suffixes = (".java", ".kt")
    function_imports = False  # an import may name a top-level function (Kotlin)

    def imported_bare_call(self, unit: Unit, name: str, site: Site) -> bool:
        """Java static imports (`import static a.B.f`, `a.B.*`), Kotlin function imports."""
        for path, alias, _line, flags in unit.facts.get("imports", ()):
            local = alias or path.rpartition(".")[2]
            if local == name and (flags == "static" or self.function_imports):
                found = self.find_fqn(path)
                if found is not None:
                    site.call(found, "import")
                    return True
            elif flags == "static" and path.endswith(".*"):
                cls = self.find_fqn(path[:-2])
                if cls is not None:
                    found, _ = self.program.member(cls, name)
                    if found is not None:
                        site.bind(found, "import")
                        return True
        return False

    def opaque_receiver(self, unit: Unit, receiver: str) -> bool:
        return self.imported_name(unit, receiver)

    import_links = NamedPackageRules.class_import_links


class JavaRules(JvmRules):
    def constructor_names(self, class_name: str) -> tuple[str, ...]:
        return (class_name,)

    def http_rows(self, unit: Unit, target_id, source_id) -> list[list]:
        """Spring's routes, Feign clients and RestTemplate requests (resolve.jvm_services)."""
        from cartograph.resolve.jvm_services import http_rows

        return http_rows(unit, target_id, source_id)


class KotlinRules(JvmRules):
    builtins = words(
        "println print require requireNotNull check checkNotNull error lazy run let "
        "apply also with repeat listOf mutableListOf setOf mutableSetOf mapOf mutableMapOf "
        "arrayOf emptyList emptyMap emptySet listOfNotNull to"
    )
    constructor_calls = True
    members_elsewhere = True
    function_imports = True


RULES = {"java": JavaRules, "kotlin": KotlinRules}
