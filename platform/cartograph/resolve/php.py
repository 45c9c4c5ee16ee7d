"""PHP's rules for the by-name tier (see cartograph.resolve.generic).

Namespaces are declared per file (`namespace A\\B;`) and classes imported by their full name
(`use A\\B\\Foo`); a namespace's files are found in directories ending with its path, also a
shorter tail of it (PSR-4 layouts drop the vendor prefix), and in files named after a class
(`Foo.php`). `ns\\f()` names a function of a namespace, relative to the file's own unless
written from the root; `new X` runs `__construct`.
"""

from __future__ import annotations

from cartograph.resolve.generic import NamedPackageRules, Target, Unit


class PhpRules(NamedPackageRules):
    this_names = frozenset({"$this", "self", "static"})
    super_names = frozenset({"parent"})
    class_file_suffixes = (".php",)
    always_tails = True

    def constructor_names(self, class_name: str) -> tuple[str, ...]:
        return ("__construct",)

    def namespace_call(self, text: str | None, name: str) -> bool:
        return text is not None and text.endswith("\\" + name)

    def namespace_function(self, unit: Unit, path: str, name: str) -> Target | None:
        # `ns\f()` is relative to the file's namespace, `\ns\f()` absolute
        qual = f"{path}.{name}"
        for fqn in (f"{unit.package}.{qual}" if unit.package else qual, qual):
            found = self.find_fqn(fqn)
            if found is not None and found[0].kind(found[1]) == "function":
                return found
        return None

    import_links = NamedPackageRules.class_import_links


RULES = {"php": PhpRules}
