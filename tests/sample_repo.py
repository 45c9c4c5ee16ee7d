"""A small realistic repository for query, CLI and MCP tests (a git work tree in tmp_path)."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

FILES = {
    "shop/__init__.py": '''
        """A tiny shop."""
        from .orders import place_order

        __all__ = ["place_order"]
    ''',
    "shop/models.py": '''
        class Cart:
            """A customer's cart."""

            def __init__(self):
                self.items = []

            def add(self, sku: str, qty: int = 1) -> None:
                self.items.append((sku, qty))

            def total(self) -> float:
                return sum(price_of(sku) * qty for sku, qty in self.items)


        def price_of(sku: str) -> float:
            return 9.99


        def unused_helper():
            return 42


        def _maybe_used():
            return 1
    ''',
    "shop/payments.py": """
        from shop.models import Cart


        class Gateway:
            def charge(self, amount: float) -> bool:
                return amount > 0


        class PaymentService:
            def __init__(self, gateway: Gateway):
                self.gateway = gateway

            def pay(self, cart: Cart) -> bool:
                return self.gateway.charge(cart.total())


        def dynamic(obj):
            return obj._maybe_used()
    """,
    "shop/orders.py": '''
        from shop.models import Cart
        from shop.payments import Gateway, PaymentService


        def place_order(skus: list[str]) -> bool:
            """Build a cart and pay for it."""
            cart = Cart()
            for sku in skus:
                cart.add(sku)
            service = PaymentService(Gateway())
            return service.pay(cart)
    ''',
    "tests/test_orders.py": """
        from shop import place_order


        def test_place_order():
            assert place_order(["a"])
    """,
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def make_sample_repo(root: Path, files: dict[str, str] = FILES) -> Path:
    """A git work tree of `files` (the shop by default), committed once."""
    root.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip())
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root
