"""The engine (a regular package inside the namespace package `acme`)."""
