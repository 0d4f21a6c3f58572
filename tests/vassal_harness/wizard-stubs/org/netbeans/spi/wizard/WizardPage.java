/*
 * Stand-in for the NetBeans wizard library (org.netbeans:wizard 0.998.1), which VASSAL 3.6
 * needs on its class path but which is neither in Vengine.jar nor a Debian package.
 * VASSAL.build.module.WizardSupport (the Welcome Wizard) extends these classes, and
 * GameModule.getWizardSupport() is called while a PredefinedSetup is built, so they must load.
 * The harness never shows the wizard: every entry point here throws.
 */
package org.netbeans.spi.wizard;

import java.util.Map;

import javax.swing.JPanel;

public class WizardPage extends JPanel {
  private static final long serialVersionUID = 1L;

  public WizardPage(String stepDescription) {
    super();
  }

  protected final void putWizardData(Object key, Object value) {
  }

  public interface WizardResultProducer {
    Object finish(Map wizardData) throws WizardException;

    boolean cancel(Map settings);
  }
}
