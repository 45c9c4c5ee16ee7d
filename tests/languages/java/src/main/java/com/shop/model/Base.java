package com.shop.model;

public abstract class Base {
    protected void audit(String what) {
    }
}
