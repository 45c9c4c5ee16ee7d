void note(const char *s) {
}
