STRINGS = {
}
