/*
 * Stand-in for the NetBeans wizard library (org.netbeans:wizard 0.998.1), which VASSAL 3.6
 * needs on its class path but which is neither in Vengine.jar nor a Debian package.
 * VASSAL.build.module.WizardSupport (the Welcome Wizard) extends these classes, and
 * GameModule.getWizardSupport() is called while a PredefinedSetup is built, so they must load.
 * The harness never shows the wizard: every entry point here throws.
 */
package org.netbeans.spi.wizard;

public interface WizardController {
  int MODE_CAN_CONTINUE = 1;
  int MODE_CAN_FINISH = 2;
  int MODE_CAN_CONTINUE_OR_FINISH = 3;

  void setProblem(String value);

  void setForwardNavigationMode(int navigationMode);

  void setBusy(boolean busy);
}
