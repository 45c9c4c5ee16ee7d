"""Geometry for the floor-plan renderer."""
