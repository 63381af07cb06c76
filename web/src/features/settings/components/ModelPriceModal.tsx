import { Form, Input, Modal, Radio } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError } from '../../../lib/feedback';
import { isValidNumber, ratiosFromTokenPrices, type RatioRow } from './ratio-editor';

type PriceMode = 'price' | 'ratio' | 'tokenPrice';

interface Props {
  /** The row being edited, or null to add a model. */
  row: RatioRow | null;
  existing: string[];
  onClose: () => void;
  onSave: (row: RatioRow) => void;
}

interface Values {
  name: string;
  price: string;
  ratio: string;
  completionRatio: string;
  inputPrice: string;
  outputPrice: string;
}

/** Adds or edits one model: a per-call price, ratios, or per-1M-token prices turned into ratios. */
export function ModelPriceModal({ row, existing, onClose, onSave }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Values>();
  const [mode, setMode] = useState<PriceMode>(row && row.price !== '' ? 'price' : 'ratio');
  const numbers = (...texts: string[]) => texts.every((text) => text === '' || isValidNumber(text));

  const submit = (values: Values) => {
    const name = (row?.name ?? values.name ?? '').trim();
    if (!name) return showError(t('settingsOps.enterModelName'));
    if (!row && existing.includes(name)) return showError(t('settingsOps.modelExists'));
    if (mode === 'price') {
      if (!isValidNumber(values.price ?? '')) return showError(t('settingsOps.enterNumber'));
      return onSave({ name, price: String(Number(values.price)), ratio: '', completionRatio: '' });
    }
    if (mode === 'ratio') {
      const ratio = (values.ratio ?? '').trim();
      const completion = (values.completionRatio ?? '').trim();
      if (!ratio || !numbers(ratio, completion)) return showError(t('settingsOps.enterNumber'));
      return onSave({
        name,
        price: '',
        ratio: String(Number(ratio)),
        completionRatio: completion === '' ? '' : String(Number(completion)),
      });
    }
    if (!isValidNumber(values.inputPrice ?? '') || !isValidNumber(values.outputPrice ?? '')) return showError(t('settingsOps.enterNumber'));
    const ratios = ratiosFromTokenPrices(Number(values.inputPrice), Number(values.outputPrice));
    if (ratios === 'zeroPrice') return showError(t('settingsOps.priceZero'));
    return onSave({ name, price: '', ratio: String(ratios.ratio), completionRatio: String(ratios.completionRatio) });
  };

  return (
    <Modal
      open
      title={t(row ? 'settingsOps.editModel' : 'settingsOps.addModel')}
      onCancel={onClose}
      onOk={() => form.submit()}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      destroyOnHidden
    >
      <Form
        form={form}
        layout="vertical"
        initialValues={{
          name: row?.name ?? '',
          price: row?.price ?? '',
          ratio: row?.ratio ?? '',
          completionRatio: row?.completionRatio ?? '',
          inputPrice: '',
          outputPrice: '',
        }}
        onFinish={submit}
      >
        <Form.Item name="name" label={t('settingsOps.modelName')}>
          <Input aria-label={t('settingsOps.modelName')} disabled={!!row} />
        </Form.Item>
        <Form.Item label={t('settingsOps.billingMode')}>
          <Radio.Group
            value={mode}
            onChange={(event) => setMode(event.target.value as PriceMode)}
            options={(['price', 'ratio', 'tokenPrice'] as const).map((value) => ({ value, label: t(`settingsOps.mode.${value}`) }))}
          />
        </Form.Item>
        {mode === 'price' && (
          <Form.Item name="price" label={t('settingsOps.fixedPrice')} extra={t('settingsOps.fixedPriceHint')}>
            <Input aria-label={t('settingsOps.fixedPrice')} prefix="$" />
          </Form.Item>
        )}
        {mode === 'ratio' && (
          <>
            <Form.Item name="ratio" label={t('settingsOps.ratioColumn')}>
              <Input aria-label={t('settingsOps.ratioColumn')} />
            </Form.Item>
            <Form.Item name="completionRatio" label={t('settingsOps.completionColumn')}>
              <Input aria-label={t('settingsOps.completionColumn')} />
            </Form.Item>
          </>
        )}
        {mode === 'tokenPrice' && (
          <>
            <Form.Item name="inputPrice" label={t('settingsOps.inputPrice')}>
              <Input aria-label={t('settingsOps.inputPrice')} prefix="$" />
            </Form.Item>
            <Form.Item name="outputPrice" label={t('settingsOps.outputPrice')}>
              <Input aria-label={t('settingsOps.outputPrice')} prefix="$" />
            </Form.Item>
          </>
        )}
      </Form>
    </Modal>
  );
}
