package com.shop.service;

public interface Totals {
    int total();
}
