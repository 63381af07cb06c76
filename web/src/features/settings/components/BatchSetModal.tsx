import { Form, Input, Modal, Select } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError } from '../../../lib/feedback';
import { checkBatch, type BatchMode } from './ratio-editor';

const problemKey = {
  noSelection: 'settingsOps.selectFirst',
  needBoth: 'settingsOps.needBoth',
  needValue: 'settingsOps.needValue',
  invalidNumber: 'settingsOps.invalidNumber',
} as const;

/** Sets price, ratio, completion ratio or both ratios of the selected models at once. */
export function BatchSetModal({
  selected,
  onClose,
  onApply,
}: {
  selected: string[];
  onClose: () => void;
  onApply: (mode: BatchMode, value: string, completion: string) => void;
}) {
  const { t } = useTranslation();
  const [mode, setMode] = useState<BatchMode>('ratio');
  const [value, setValue] = useState('');
  const [completion, setCompletion] = useState('');
  const apply = () => {
    const problem = checkBatch(selected, mode, value, completion);
    if (problem) return showError(t(problemKey[problem]));
    onApply(mode, value, completion);
  };
  const firstLabel =
    mode === 'price' ? 'settingsOps.fixedPrice' : mode === 'completionRatio' ? 'settingsOps.completionColumn' : 'settingsOps.ratioColumn';
  return (
    <Modal
      open
      title={t('settingsOps.batchTitle', { count: selected.length })}
      onCancel={onClose}
      onOk={apply}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
    >
      <Form layout="vertical">
        <Form.Item label={t('settingsOps.batchMode')} extra={t(`settingsOps.batchHint.${mode}`)}>
          <Select<BatchMode>
            aria-label={t('settingsOps.batchMode')}
            value={mode}
            onChange={setMode}
            options={(['price', 'ratio', 'completionRatio', 'bothRatio'] as const).map((item) => ({
              value: item,
              label: t(`settingsOps.batch.${item}`),
            }))}
          />
        </Form.Item>
        <Form.Item label={t(firstLabel)}>
          <Input aria-label={t('settingsOps.batchValue')} value={value} onChange={(event) => setValue(event.target.value)} />
        </Form.Item>
        {mode === 'bothRatio' && (
          <Form.Item label={t('settingsOps.completionColumn')}>
            <Input
              aria-label={t('settingsOps.batchCompletionValue')}
              value={completion}
              onChange={(event) => setCompletion(event.target.value)}
            />
          </Form.Item>
        )}
      </Form>
    </Modal>
  );
}
