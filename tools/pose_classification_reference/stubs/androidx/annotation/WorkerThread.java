package androidx.annotation;

public @interface WorkerThread {}
