package com.shop.model

data class Item(val name: String) {
    fun label(): String = name.uppercase()
}

fun itemOf(name: String): Item = Item(name)
