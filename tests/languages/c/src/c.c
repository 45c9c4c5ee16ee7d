static int hidden(void) {
    return 1;
}
