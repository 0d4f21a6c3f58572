/*
 * Stand-in for the NetBeans wizard library (org.netbeans:wizard 0.998.1), which VASSAL 3.6
 * needs on its class path but which is neither in Vengine.jar nor a Debian package.
 * VASSAL.build.module.WizardSupport (the Welcome Wizard) extends these classes, and
 * GameModule.getWizardSupport() is called while a PredefinedSetup is built, so they must load.
 * The harness never shows the wizard: every entry point here throws.
 */
package org.netbeans.spi.wizard;

import java.util.Map;

import javax.swing.JComponent;

public abstract class WizardPanelProvider {
  protected WizardPanelProvider(String title, String[] steps, String[] descriptions) {
  }

  protected WizardPanelProvider(String[] steps, String[] descriptions) {
  }

  protected WizardPanelProvider(String title, String singleStep, String singleDescription) {
  }

  protected abstract JComponent createPanel(WizardController controller, String id, Map settings);

  protected Object finish(Map settings) throws WizardException {
    return settings;
  }

  public boolean cancel(Map settings) {
    return true;
  }

  protected int indexOfStep(String id) {
    return -1;
  }

  public final Wizard createWizard() {
    throw new UnsupportedOperationException(
      "VASSAL wants to show its wizard (welcome or game-setup wizard for an unfinished "
      + "GameSetupStep); the harness has only a stub of the NetBeans wizard library");
  }
}
