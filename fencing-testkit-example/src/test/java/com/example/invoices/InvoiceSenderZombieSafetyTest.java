package com.example.invoices;

import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.ZombieSafetyProperties;

/** The whole property suite, against this project's handler and receiver: one class, one method. */
class InvoiceSenderZombieSafetyTest extends ZombieSafetyProperties {

  @Override
  protected Class<? extends FencingBackend> backend() {
    return InvoiceBackend.class;
  }
}
