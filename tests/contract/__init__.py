"""The contract suite: one file per store interface (store/interfaces.py), every test on both
stores through the `stores` fixture."""
